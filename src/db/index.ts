import path from 'node:path';
import type { Config } from '../config.ts';
import type { DatabaseHandle } from './handle.ts';
import { openPostgres } from './postgres.ts';
import { openSqlite } from './sqlite.ts';
import { GROUP_COMMIT } from './group-commit.ts';
import type { DatabaseObserver } from './observer.ts';

export type { DialectFeatures, DialectName } from './dialect.ts';
export type { DatabaseHandle } from './handle.ts';
export { type DatabaseObserver, type DatabaseStats, NO_DATABASE_OBSERVER, type PoolStats } from './observer.ts';
export type { ReadCache } from './cache.ts';
export type * from './schema.ts';
export {
  type AnyPreparedQuery,
  type PreparedQuery,
  type PreparedReader,
  type QueryScope,
  type RowOf,
  jsonRowsOf,
  jsonRowsReader,
  preparedQuery,
} from './prepared.ts';
export { type BulkOps, type SetColumn, bulkOps } from './bulk.ts';
export { type Anchor, type AnchoredList, anchoredPage } from './page-anchors.ts';
export { type CommitGroup, CommitQueueFull } from './group-commit.ts';
export { migrateToLatest } from './migrate.ts';
export { CROSS_PROJECT, type CrossProjectKey, crossProject } from './app-id-check.ts';
export { type LeasedJobTable, leasedJobs } from './leased-jobs.ts';
export { type TimedQueueColumns, type TimedQueueTable, timedQueue } from './timed-queue.ts';
export { type CustomerMove, type MovedCustomerTable, customerMoves } from './customer-moves.ts';
export { BackupError, SQLITE_FILE_NAMES, databaseIsEmpty, dialectOf, restoreDatabase, snapshotDatabase, snapshotName } from './backup.ts';
export { isTransientConflict, isUniqueViolation, uniqueViolationTarget } from './errors.ts';
export { containsInsensitive, containsPattern } from './sql.ts';

/** The database the config selects: PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR. */
export function createDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'sqliteReadThread' | 'writeQueueRecords' | 'appIdCheck'>>,
  observer?: DatabaseObserver,
): DatabaseHandle {
  const groups = { maxQueued: config.writeQueueRecords ?? GROUP_COMMIT.maxQueued };
  if (config.databaseUrl) return openPostgres(config.databaseUrl, { groups, observer, appIdCheck: config.appIdCheck ?? false });
  return openSqlite(path.join(config.dataDir, 'rapport.sqlite'), { readThread: config.sqliteReadThread ?? false, groups, observer });
}
