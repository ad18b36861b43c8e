import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DatabaseHandle, DialectFeatures } from './dialect.ts';
import type { Database } from './schema.ts';

export const sqliteFeatures: DialectFeatures = {
  name: 'sqlite',
  skipLocked: false,
  maxParameters: 32766,
  autoIncrementType: 'integer',
  autoIncrementPrimaryKey: (col) => col.primaryKey().autoIncrement(),
};

/** Opens (creating if needed) the embedded database file, tuned for a single-writer server. */
export function openSqlite(file: string): DatabaseHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new SqliteDatabase(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('cache_size = -65536');
  raw.pragma('temp_store = MEMORY');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  return {
    db,
    features: sqliteFeatures,
    description: `sqlite ${file}`,
    async close() {
      await db.destroy();
    },
  };
}
