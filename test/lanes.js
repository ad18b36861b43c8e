/**
 * Which test files CI (.ci/run) runs on which database. `npm test` runs every file on SQLite. A file
 * also runs on PostgreSQL unless it is listed in `sqliteOnly`, so a new test file runs on both
 * databases until someone shows its behaviour does not depend on the database. The SQLite run with
 * reads on the main thread (SQLITE_READ_THREAD=false) takes only the files in `mainThreadReads`.
 * `node scripts/test-lanes.js postgres|main-thread-reads` prints a lane's files (and fails on a
 * listed file that does not exist).
 */

/** Files whose behaviour does not depend on the database, or that exercise SQLite alone. */
export const sqliteOnly = [
  // Browsers driving the console, the viewer and the snippet: the API under them is covered on both
  // databases by the HTTP tests, and they are half of a suite's time.
  'test/console.e2e.test.ts',
  'test/console-campaigns.e2e.test.ts',
  'test/console-import.e2e.test.ts',
  'test/console-links.e2e.test.ts',
  'test/console-reset.e2e.test.ts',
  'test/site.e2e.test.ts',
  'test/viewer.e2e.test.ts',
  // No database at all: pure code, the console's build, the SDK's types, lint-like checks.
  'test/bounded-cache.test.ts',
  'test/console-budget.test.ts',
  'test/console-server.test.ts',
  'test/error-codes.test.ts',
  'test/layers.test.ts',
  'test/logger.test.ts',
  'test/sdk.test.ts',
  'test/time.test.ts',
  'test/viewer-script.test.ts',
  'test/visitor.test.ts',
  'console/src',
  // SQLite's own machinery.
  'test/sqlite-limit.test.ts',
  'test/sqlite-read-thread.test.ts',
];

/** Files that read through every kind of prepared read, run again with SQLite's reads on the main thread. */
export const mainThreadReads = [
  'test/caching.test.ts',
  'test/customer-pages.test.ts',
  'test/customers.test.ts',
  'test/histories.test.ts',
  'test/histories-behaviour.test.ts',
  'test/links.test.ts',
  'test/object-authorization.test.ts',
  'test/prepared-rows.test.ts',
  'test/site-tracking.test.ts',
  'test/statements.test.ts',
  'test/sqlite-read-thread.test.ts',
];
