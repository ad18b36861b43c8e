/**
 * SQLite reads on a worker thread (SQLITE_READ_THREAD, on by default; ADR 0003). better-sqlite3 runs
 * a statement on the calling thread, so on the main thread every read's SQLite work competes with
 * HTTP for one core while the second core waits. The worker holds its own read-only connection; the
 * reads of one turn of the event loop go to it in one message and come back in a few (a slice of about
 * half a millisecond of work each, so that the main thread answers the first while the worker runs the
 * rest), so a read costs the main thread ~1–2 µs under load instead of its whole statement.
 */
import { Worker } from 'node:worker_threads';

/** One read: the statement's text, its parameters, and how its rows come back. */
interface Request {
  id: number;
  sql: string;
  params: unknown[];
  /** 'all' rows or the 'first'; rows as value arrays, or the one column's value (`pluck`). */
  first: boolean;
  pluck: boolean;
}

type Reply = [id: number, ok: true, result: unknown] | [id: number, ok: false, error: { message: string; code?: string }];

// Beside this module in src/ (the tests) and beside the server bundle in dist/, which holds this module.
const WORKER_FILE = new URL('./sqlite-read-worker.js', import.meta.url);

/** A read that failed in the worker: the driver's message and SQLite's code. */
export class SqliteReadError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

export class SqliteReadWorker {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  private queue: Request[] = [];
  private scheduled = false;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly cacheSize: number,
  ) {}

  /** Runs a read on the worker: the rows (value arrays, or plucked values) or the first, or undefined. */
  read(sql: string, params: unknown[], first: boolean, pluck: boolean): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.queue.push({ id, sql, params, first, pluck });
      if (!this.scheduled) {
        // The reads of this turn of the event loop go in one message.
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0) this.started().postMessage(batch);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_FILE, {
      workerData: { file: this.file, cacheSize: this.cacheSize },
      // A small heap: the worker only holds statements and each batch's rows on their way out.
      resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 64 },
    });
    worker.unref();
    worker.on('message', (replies: Reply[]) => {
      for (const reply of replies) {
        const p = this.pending.get(reply[0]);
        if (p === undefined) continue;
        this.pending.delete(reply[0]);
        if (reply[1]) p.resolve(reply[2]);
        else p.reject(new SqliteReadError(reply[2].message, reply[2].code));
      }
    });
    const fail = (error: unknown) => {
      // Whatever was sent is lost with the worker: fail those reads, start a new worker for the next.
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(error instanceof Error ? error : new Error(String(error)));
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.pending.size > 0) fail(new Error(`the SQLite read worker stopped (exit ${code})`));
      else if (this.worker === worker) this.worker = null;
    });
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
    for (const p of this.pending.values()) p.reject(new Error('the database is closed'));
    this.pending.clear();
  }
}
