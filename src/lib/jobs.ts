import type { Clock } from './time.ts';

/**
 * What one tick did: `worked` (the next tick comes at once), `idle` (nothing was due: wait the job's
 * `idleMs` or until poked), or a wait of its own (an SMTP server that cannot be reached).
 */
export type TickOutcome = 'worked' | 'idle' | { waitMs: number };

/** What a tick can ask of its job while it runs. */
export interface JobRun {
  /** The job is stopping: long work checks it between its steps and returns. */
  readonly stopping: boolean;
}

/** A piece of background work, run tick after tick while the process serves. */
export interface JobDefinition {
  /** Names the job in logs and metrics: lower-case words joined by dashes. */
  readonly name: string;
  /** How long an idle job waits before it looks again (a poke ends the wait early). */
  readonly idleMs: number;
  /** Loops running ticks side by side (default 1). */
  readonly loops?: number;
  /** A poke starts a job that was never started (work made in this process is done without a start). */
  readonly startOnPoke?: boolean;
  /** The longest wait after failed ticks in a row: the wait doubles from `idleMs` up to this (default 60 s). */
  readonly maxBackoffMs?: number;
  /** One piece of work. A throw is reported and the tick tried again after the backoff. */
  tick(run: JobRun): Promise<TickOutcome>;
  /** Called when a stop is asked, before the tick under way is waited for (to abort long work). */
  stopping?(): Promise<void> | void;
  /** Called once the job's loops have ended on a stop (closing a pool). */
  stopped?(): Promise<void> | void;
}

/** What the jobs report: each tick's outcome and time, and failures (metrics and logs). */
export interface JobEvents {
  ticked(name: string, outcome: 'worked' | 'idle' | 'failed', seconds: number): void;
  failed(name: string, err: unknown, retryInMs: number): void;
}

/** A defined job, as its owner holds it. */
export interface Job {
  readonly name: string;
  /** New work: an idle loop looks now (and a `startOnPoke` job starts). */
  poke(): void;
  /** Whether a stop was asked. */
  readonly stopping: boolean;
}

/** How a service defines its job (the composition root hands it `jobs.define`). */
export type DefineJob = (def: JobDefinition) => Job;

const DEFAULT_MAX_BACKOFF_MS = 60_000;

class JobLoop implements Job, JobRun {
  stopping = false;
  /** A poke came while a tick ran: the next wait is skipped, so the work it announced is not left for idleMs. */
  private poked = false;
  private loops: Promise<void>[] = [];
  private readonly wakers = new Set<() => void>();
  private failures = 0;

  constructor(
    private readonly def: JobDefinition,
    private readonly clock: Clock,
    private readonly events: JobEvents,
  ) {}

  get name(): string {
    return this.def.name;
  }

  get running(): boolean {
    return this.loops.length > 0;
  }

  poke(): void {
    if (this.stopping) return;
    if (!this.running) {
      // A job that starts ticks at once.
      if (this.def.startOnPoke) this.start();
      return;
    }
    this.poked = true;
    for (const wake of this.wakers) wake();
  }

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.loops = Array.from({ length: this.def.loops ?? 1 }, () => this.loop());
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.wakers) wake();
    const aborting = this.loops.length > 0 ? this.def.stopping?.() : undefined;
    await Promise.all([...this.loops, aborting]);
    const wasRunning = this.loops.length > 0;
    this.loops = [];
    if (wasRunning) await this.def.stopped?.();
  }

  /** One tick now, as a loop runs it: its outcome (a failure is reported and answers a wait). */
  async tickOnce(): Promise<TickOutcome> {
    const started = performance.now();
    try {
      const outcome = await this.def.tick(this);
      this.failures = 0;
      this.events.ticked(this.def.name, outcome === 'worked' ? 'worked' : 'idle', (performance.now() - started) / 1000);
      return outcome;
    } catch (err) {
      this.failures += 1;
      const waitMs = Math.min(this.def.idleMs * 2 ** (this.failures - 1), this.def.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
      this.events.ticked(this.def.name, 'failed', (performance.now() - started) / 1000);
      this.events.failed(this.def.name, err, waitMs);
      return { waitMs };
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.poked = false;
      const outcome = await this.tickOnce();
      if (outcome === 'worked' || this.stopping) continue;
      if (this.poked) continue;
      await this.wait(outcome === 'idle' ? this.def.idleMs : outcome.waitMs);
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        cancel();
        this.wakers.delete(wake);
        resolve();
      };
      const cancel = this.clock.after(ms, wake);
      this.wakers.add(wake);
    });
  }
}

/**
 * The process's background work, every loop of it: sweeps, senders, renderers, importers, the
 * relay. The composition root defines each job once; the server starts them all and stops them
 * on SIGTERM, waiting for the ticks under way. Every wait goes through the clock.
 */
export class BackgroundJobs {
  private readonly jobs = new Map<string, JobLoop>();

  constructor(
    private readonly clock: Clock,
    private readonly events: JobEvents,
  ) {}

  define(def: JobDefinition): Job {
    if (this.jobs.has(def.name)) throw new Error(`a background job named ${def.name} is defined already`);
    const job = new JobLoop(def, this.clock, this.events);
    this.jobs.set(def.name, job);
    return job;
  }

  /** The defined jobs' names. */
  names(): string[] {
    return [...this.jobs.keys()];
  }

  /** Starts every job, or the named ones. */
  start(names: readonly string[] = this.names()): void {
    for (const name of names) this.get(name).start();
  }

  /** Stops every job and waits for the ticks under way to return. */
  async stop(): Promise<void> {
    await Promise.all([...this.jobs.values()].map((j) => j.stop()));
  }

  /**
   * Ticks the named job until a tick finds nothing to do (or asks to wait), without its loop: what
   * the CLI and tests use where no loop runs. The number of ticks that worked.
   */
  async runUntilIdle(name: string): Promise<number> {
    const job = this.get(name);
    let worked = 0;
    while ((await job.tickOnce()) === 'worked') worked += 1;
    return worked;
  }

  private get(name: string): JobLoop {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no background job named ${name}`);
    return job;
  }
}
