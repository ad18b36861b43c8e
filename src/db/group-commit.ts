import type { Kysely, Transaction } from 'kysely';
import { type DatabaseObserver, NO_DATABASE_OBSERVER } from './observer.ts';
import type { Database } from './schema.ts';

/** How a commit group gathers its jobs. */
export interface CommitGroupOptions {
  /** A group holds at most this many records (the sum of the jobs' sizes). */
  maxRecords: number;
  /**
   * How long a group waits for company when a transaction slot is free (0: the rest of the current
   * event-loop turn). Jobs that arrive while every slot is busy gather until one frees.
   */
  maxWaitMs: number;
  /** Records waiting (not yet in a running transaction) past which `submit` refuses with CommitQueueFull. */
  maxQueued: number;
  /** Group transactions run at the same time (1 on SQLite: there is one writer). */
  concurrency: number;
}

/**
 * The defaults: at most 256 records a group, 2 ms of waiting for company (SQLite: 0); up to 16,384
 * records wait; on PostgreSQL four groups commit at once (each holds one connection of the pool).
 */
export const GROUP_COMMIT: CommitGroupOptions = { maxRecords: 256, maxWaitMs: 2, maxQueued: 16_384, concurrency: 4 };

/** `submit` refused a job: the queue is full. Answer 503 with Retry-After; nothing was written. */
export class CommitQueueFull extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many writes are waiting; try again shortly');
    this.name = 'CommitQueueFull';
  }
}

/**
 * Writes many small jobs (one request's records each) in few transactions. `submit` resolves once
 * the transaction holding the job has committed, and rejects with that job's own error when it
 * cannot be written.
 */
export interface CommitGroup<J> {
  submit(job: J, records: number): Promise<void>;
  /** Records waiting for a transaction. */
  readonly queued: number;
  /** Resolves once nothing waits and every group taken is committed and answered (shutdown). */
  idle(): Promise<void>;
}

/** Writes a group's jobs inside one transaction; throws when any of them cannot be written. */
export type GroupWriter<J> = (trx: Transaction<Database>, jobs: J[]) => Promise<void>;

/** How a dialect commits a group: its transaction, and the wait until what it committed is durable. */
export interface GroupTransactions {
  transaction(write: (trx: Transaction<Database>) => Promise<void>): Promise<void>;
  /** Resolves once every transaction committed so far is on disk (PostgreSQL's commit already is). */
  durable(): Promise<void>;
}

/** Plain transactions whose commit is durable when it returns (PostgreSQL, synchronous_commit on). */
export const durableCommits = (db: Kysely<Database>): GroupTransactions => ({
  transaction: (write) => db.transaction().execute(write),
  durable: () => Promise.resolve(),
});

interface Waiting<J> {
  job: J;
  records: number;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Group commit: jobs submitted while a group gathers are written by `write` in one transaction, so
 * the cost of a durable commit (an fsync, a round trip, a WAL flush) is paid once for all of them.
 * A group that fails is split in halves and each half is written again, down to the job that fails
 * alone, which gets the error; the others commit. A job is never acknowledged before its commit.
 */
export function createCommitGroup<J>(
  transactions: GroupTransactions,
  write: GroupWriter<J>,
  options: CommitGroupOptions,
  observer: DatabaseObserver = NO_DATABASE_OBSERVER,
): CommitGroup<J> {
  let waiting: Waiting<J>[] = [];
  let queuedRecords = 0;
  let running = 0;
  /** Groups taken whose jobs are not yet answered (committing, or waiting for the disk). */
  let unanswered = 0;
  let idleWaiters: (() => void)[] = [];
  const settle = (): void => {
    if (waiting.length > 0 || unanswered > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  /** The pending start of the gathering group, when one is scheduled. */
  let timer: { cancel(): void } | null = null;

  /** Records committed per millisecond of transaction, smoothed over recent groups (0: none yet). */
  let recordsPerMs = 0;

  /** Writes a group; returns the jobs that committed (a job that fails alone is rejected here). */
  const commit = async (group: Waiting<J>[]): Promise<Waiting<J>[]> => {
    try {
      const started = performance.now();
      await transactions.transaction((trx) =>
        write(
          trx,
          group.map((w) => w.job),
        ),
      );
      let records = 0;
      for (const w of group) records += w.records;
      const ms = performance.now() - started;
      observer.groupCommitted(group.length, records, ms / 1000);
      const rate = (records * options.concurrency) / Math.max(0.05, ms);
      recordsPerMs = recordsPerMs === 0 ? rate : 0.8 * recordsPerMs + 0.2 * rate;
      return group;
    } catch (err) {
      if (group.length === 1) {
        group[0]?.reject(err);
        return [];
      }
      const half = Math.ceil(group.length / 2);
      return [...(await commit(group.slice(0, half))), ...(await commit(group.slice(half)))];
    }
  };

  /** Acknowledges committed jobs once their commit is on disk. */
  const acknowledge = async (committed: Waiting<J>[]): Promise<void> => {
    if (committed.length === 0) return;
    try {
      await transactions.durable();
    } catch (err) {
      // Committed but not known to be on disk: not acknowledged (the client retries; ids deduplicate).
      for (const w of committed) w.reject(err);
      return;
    }
    for (const w of committed) w.resolve();
  };

  /** Takes the next group off the queue, up to maxRecords (always at least one job). */
  const take = (): Waiting<J>[] => {
    let records = 0;
    let n = 0;
    while (n < waiting.length) {
      const next = waiting[n] as Waiting<J>;
      if (n > 0 && records + next.records > options.maxRecords) break;
      records += next.records;
      n += 1;
    }
    const group = waiting.slice(0, n);
    waiting = waiting.slice(n);
    queuedRecords -= records;
    return group;
  };

  const flush = (): void => {
    timer?.cancel();
    timer = null;
    while (running < options.concurrency && waiting.length > 0) {
      const group = take();
      running += 1;
      unanswered += 1;
      void commit(group)
        .then((committed) => {
          running -= 1;
          // What gathered while every slot was busy goes at once; the wait for the disk does not
          // hold the slot, so the next group commits while this one's flush is under way.
          flush();
          return acknowledge(committed);
        })
        .finally(() => {
          unanswered -= 1;
          settle();
        });
    }
  };

  /** A group with a free slot waits maxWaitMs for company (0: the rest of this event-loop turn). */
  const schedule = (): void => {
    if (timer || waiting.length === 0 || running >= options.concurrency) return;
    if (options.maxWaitMs > 0) {
      const t = setTimeout(flush, options.maxWaitMs);
      timer = { cancel: () => clearTimeout(t) };
    } else {
      const t = setImmediate(flush);
      timer = { cancel: () => clearImmediate(t) };
    }
  };

  return {
    submit(job, records) {
      if (queuedRecords > 0 && queuedRecords + records > options.maxQueued) {
        // Retry-After: how long the queue takes to drain at the rate groups have been committing.
        const seconds = recordsPerMs > 0 ? queuedRecords / recordsPerMs / 1000 : 1;
        observer.groupRefused();
        return Promise.reject(new CommitQueueFull(Math.min(60, Math.max(1, Math.ceil(seconds)))));
      }
      return new Promise<void>((resolve, reject) => {
        waiting.push({ job, records, resolve, reject });
        queuedRecords += records;
        if (queuedRecords >= options.maxRecords) flush();
        else schedule();
      });
    },
    get queued() {
      return queuedRecords;
    },
    idle() {
      if (waiting.length === 0 && unanswered === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
