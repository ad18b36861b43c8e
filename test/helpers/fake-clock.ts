import { Clock } from '../../src/lib/time.ts';

/** Lets promises and the work they start settle (a few turns of the event loop). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

/**
 * A clock that only moves when the test moves it: `now()` is the test's time and the waits of
 * background work (`after`) fire in order as `advance` passes them.
 */
export class FakeClock extends Clock {
  private time: number;
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 10, 1, 9, 0, 0), timeZone = 'UTC') {
    super(timeZone);
    this.time = start;
  }

  override now(): number {
    return this.time;
  }

  override after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Waits that have not fired yet. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time on by `ms`, firing each wait that falls due on the way, in order, settling after each. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
      await settle();
    }
    this.time = end;
    await settle();
  }
}
