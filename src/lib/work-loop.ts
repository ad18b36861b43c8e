/**
 * A process's one worker over a queue kept in the database: it takes the next piece of work while
 * there is some, one at a time, and otherwise waits `pollMs` or until poked (new work was made here).
 * A failed look for work is reported and tried again after the wait. The timer does not keep the
 * process alive.
 */
export interface WorkLoop {
  /** Starts the loop if it is not running, and has it look for work now. */
  poke(): void;
  /** Runs again after a stop. */
  start(): void;
  /** Stops looking for work; resolves once the piece under way has returned. */
  stop(): Promise<void>;
  /** Whether the loop was asked to stop: long work checks it between its steps. */
  readonly stopped: boolean;
}

export function workLoop<T>(options: {
  pollMs: number;
  next: () => Promise<T | null>;
  work: (item: T) => Promise<void>;
  lookFailed: (err: unknown) => void;
}): WorkLoop {
  let stopped = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;

  async function run(): Promise<void> {
    while (!stopped) {
      let item: T | null = null;
      try {
        item = await options.next();
      } catch (err) {
        options.lookFailed(err);
      }
      if (item !== null) {
        await options.work(item);
        continue;
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        timer.unref();
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  }

  const self: WorkLoop = {
    poke() {
      if (stopped) return;
      loop ??= run().finally(() => {
        loop = null;
      });
      wake?.();
    },
    start() {
      stopped = false;
      self.poke();
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
    get stopped() {
      return stopped;
    },
  };
  return self;
}
