import path from 'node:path';
import type { Config } from '../config.ts';
import type { DatabaseHandle } from './handle.ts';
import { openPostgres } from './postgres.ts';
import { openSqlite } from './sqlite.ts';

export type { DialectFeatures, DialectName } from './dialect.ts';
export type { DatabaseHandle } from './handle.ts';
export type { ReadCache } from './cache.ts';
export type { Database } from './schema.ts';
export { isTransientConflict, isUniqueViolation, uniqueViolationTarget } from './errors.ts';
export { containsInsensitive, containsPattern } from './sql.ts';

/** The database the config selects: PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR. */
export function createDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'sqliteReadThread'>>,
): DatabaseHandle {
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  return openSqlite(path.join(config.dataDir, 'rapport.sqlite'), { readThread: config.sqliteReadThread ?? false });
}
