// @ts-check
/**
 * The SQLite read worker thread started by SqliteReadWorker (sqlite-worker.ts): its own read-only
 * connection runs the batches of reads it is sent and answers each batch in slices (SLICE_MS).
 *
 * Plain JavaScript, so the same file runs from src/ under the tests (a worker thread does not get
 * vitest's TypeScript loader) and from dist/ in the build, which copies it beside the server bundle.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @typedef {{ id: number; sql: string; params: unknown[]; first: boolean; pluck: boolean }} Request */

const port = parentPort;
if (!port) throw new Error('sqlite-read-worker.js runs as a worker thread');

/** @type {{ file: string; cacheSize: number }} */
const { file, cacheSize } = workerData;
const db = new Database(file, { fileMustExist: true, readonly: false });
db.pragma('busy_timeout = 5000');
db.pragma('query_only = ON');
db.pragma(`cache_size = ${cacheSize}`);

/** @type {Map<string, import('better-sqlite3').Statement<unknown[]>>} */
const statements = new Map();

/** @param {string} sql @param {boolean} pluck */
function statementOf(sql, pluck) {
  const key = (pluck ? 'p' : 'r') + sql;
  let s = statements.get(key);
  if (s === undefined) {
    s = pluck ? db.prepare(sql).pluck(true) : db.prepare(sql).raw(true);
    statements.set(key, s);
  }
  return s;
}

/**
 * A batch's answers go back in slices of about this much work (ms) rather than all at its end. Sent
 * at the end, the two threads took turns: the main thread waited for the whole batch while this
 * one worked, then this one waited while the main thread answered every request of it and gathered
 * the next. Sliced, the main thread answers the first reads while this thread runs the rest.
 */
const SLICE_MS = 0.5;

port.on('message', (/** @type {Request[]} */ requests) => {
  /** @type {unknown[]} */
  let replies = [];
  let sliceStart = performance.now();
  for (let i = 0; i < requests.length; i += 1) {
    const r = /** @type {Request} */ (requests[i]);
    try {
      const s = statementOf(r.sql, r.pluck);
      replies.push([r.id, true, r.first ? s.get(r.params) : s.all(r.params)]);
    } catch (e) {
      const error = /** @type {{ message?: unknown; code?: string } | undefined} */ (e);
      replies.push([r.id, false, { message: String(error?.message), code: error?.code }]);
    }
    const now = performance.now();
    if (now - sliceStart >= SLICE_MS && i < requests.length - 1) {
      port.postMessage(replies);
      replies = [];
      sliceStart = now;
    }
  }
  port.postMessage(replies);
});
