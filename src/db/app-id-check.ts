/**
 * Every statement over a project's tables names the project (ADR 0018): the tables whose rows
 * belong to one project (TABLE_SCOPE) are each constrained by their project column in every
 * statement that reads or writes them, per table reference: compared with a value, or joined on it
 * to a reference that is. The exception is the few statements that work across projects on purpose
 * (CROSS_PROJECT, tagged in their SQL with `crossProject(key)`); even those join the project tables
 * they touch on the project column (co-located joins), and a tag a statement does not need fails.
 *
 * The check runs where it is switched on (RAPPORT_APP_ID_CHECK=1: the PostgreSQL test runs): the
 * PostgreSQL pools then open their connections as `AppIdCheckedClient`, which reads the text of
 * every statement any part of the server sends (Kysely's builders and transactions, the prepared
 * reader's named and coalesced statements, bulk writes written as text) before it goes out. A
 * statement that breaks the rule is not sent: it fails with AppIdCheckError naming its SQL, and is
 * recorded for the test run's teardown (takeAppIdViolations) and written to stderr (for servers
 * run as child processes). Migrations run exempt (withoutAppIdCheck).
 *
 * This file is the check at run time and what the rest imports; the lists are app-id-tables.ts,
 * the reading of a statement's text app-id-sql.ts (tokens, scopes) and app-id-analysis.ts (verdict).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { appIdViolation } from './app-id-analysis.ts';

export { type StatementFindings, analyzeStatement, appIdViolation } from './app-id-analysis.ts';
export { CROSS_PROJECT, type CrossProjectKey, TABLE_SCOPE, type TableScope, crossProject } from './app-id-tables.ts';

// The check at run time.

/** Thrown instead of running a statement that breaks the rule. */
export class AppIdCheckError extends Error {
  constructor(
    readonly reason: string,
    readonly statement: string,
  ) {
    super(`app_id check: ${reason} in: ${statement}`);
    this.name = 'AppIdCheckError';
  }
}

const exempt = new AsyncLocalStorage<true>();
/**
 * Whether a connection in this process checks statements. Until one does, the exemption is not
 * recorded at all: an AsyncLocalStorage, once run, turns on Node's promise hooks for the rest of the
 * process, and every promise of every request pays for them.
 */
let checking = false;

/** Called by the database layer when it opens connections that check their statements. */
export function startCheckingAppIds(): void {
  checking = true;
}

/** Runs `work` with its statements exempt from the check (migrations; tests reading storage directly). */
export function withoutAppIdCheck<T>(work: () => T): T {
  return checking ? exempt.run(true, work) : work();
}

const recorded: string[] = [];

/** The violations seen so far in this process, forgotten once taken (a test run's teardown fails on them). */
export function takeAppIdViolations(): string[] {
  return recorded.splice(0);
}

/** Verdicts per statement text: the same texts come back all the time (prepared statements). */
const verdicts = new Map<string, string | null>();

/** The check of one statement about to be sent: the error to fail it with, or null. */
export function checkStatement(text: string): AppIdCheckError | null {
  if (exempt.getStore()) return null;
  let reason = verdicts.get(text);
  if (reason === undefined) {
    reason = appIdViolation(text);
    if (verdicts.size >= 10_000) verdicts.clear();
    verdicts.set(text, reason);
  }
  if (reason === null) return null;
  const error = new AppIdCheckError(reason, text);
  recorded.push(error.message);
  process.stderr.write(`${error.message}\n`);
  return error;
}

type QueryArgs = [unknown, ...unknown[]];

/**
 * A node-postgres client that checks every statement before sending it (pg.Pool's `Client`
 * option): a statement that breaks the rule fails, through its callback or its promise, and is
 * never sent.
 */
export class AppIdCheckedClient extends pg.Client {
  // node-postgres' query has many overloads; this one passes all of them through.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [config] = args as QueryArgs;
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    const error = typeof text === 'string' ? checkStatement(text) : null;
    if (error === null) return (super.query as (...a: unknown[]) => unknown).apply(this, args);
    const callback = args.find((a): a is (e: Error) => void => typeof a === 'function');
    if (callback) {
      process.nextTick(callback, error);
      return undefined;
    }
    return Promise.reject(error);
  }
}
