import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** How a commit group gathers its jobs. */
export interface CommitGroupOptions {
  /** A group closes when it holds this many records (the sum of the jobs' sizes)… */
  maxRecords: number;
  /** …or this long after its first job arrived, whichever comes first. */
  maxWaitMs: number;
  /** Records waiting (not yet in a running transaction) past which `submit` refuses with CommitQueueFull. */
  maxQueued: number;
  /** Group transactions run at the same time (1 on SQLite: there is one writer). */
  concurrency: number;
}

/**
 * The defaults: a group closes at 256 records or 2 ms; up to 16,384 records wait; on PostgreSQL
 * four groups commit at once (each holds one connection of the write pool).
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
}

/** Writes a group's jobs inside one transaction; throws when any of them cannot be written. */
export type GroupWriter<J> = (trx: Transaction<Database>, jobs: J[]) => Promise<void>;

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
export function createCommitGroup<J>(db: Kysely<Database>, write: GroupWriter<J>, options: CommitGroupOptions): CommitGroup<J> {
  let waiting: Waiting<J>[] = [];
  let queuedRecords = 0;
  let running = 0;
  let timer: NodeJS.Timeout | null = null;

  const commit = async (group: Waiting<J>[]): Promise<void> => {
    try {
      await db.transaction().execute((trx) =>
        write(
          trx,
          group.map((w) => w.job),
        ),
      );
      for (const w of group) w.resolve();
    } catch (err) {
      if (group.length === 1) {
        group[0]?.reject(err);
        return;
      }
      const half = Math.ceil(group.length / 2);
      await commit(group.slice(0, half));
      await commit(group.slice(half));
    }
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
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    while (running < options.concurrency && waiting.length > 0) {
      const group = take();
      running += 1;
      void commit(group).finally(() => {
        running -= 1;
        // What gathered meanwhile goes at once when it makes a full group or its wait ran out
        // while every slot was busy (no timer left); otherwise its timer is still running.
        if (queuedRecords >= options.maxRecords || timer === null) flush();
      });
    }
  };

  const schedule = (): void => {
    if (timer || waiting.length === 0) return;
    timer = setTimeout(flush, options.maxWaitMs);
  };

  return {
    submit(job, records) {
      if (queuedRecords > 0 && queuedRecords + records > options.maxQueued) {
        // Roughly the time the queue takes to drain, at least a second.
        return Promise.reject(new CommitQueueFull(1));
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
  };
}
