import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, Kysely, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseHandle, DialectFeatures } from './dialect.ts';
import type { Database } from './schema.ts';

export const sqliteFeatures: DialectFeatures = {
  name: 'sqlite',
  skipLocked: false,
  maxParameters: 32766,
  arrayParameters: false,
  autoIncrementType: 'integer',
  autoIncrementPrimaryKey: (col) => col.primaryKey().autoIncrement(),
  transactionLock: async () => {},
};

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew; preparing is a large share of a bulk insert's cost (issue 5
 * profile), so prepared statements are reused by SQL text. Kysely runs one query at a time on
 * the single connection, so a cached statement is never used by two queries at once.
 */
function withStatementCache(raw: SqliteDatabase.Database): SqliteDatabase.Database {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return new Proxy(raw, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (source: string) => {
        let stmt = cache.get(source);
        if (stmt === undefined || stmt.busy) {
          stmt = target.prepare(source);
          if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
          cache.set(source, stmt);
        } else {
          // Least recently used goes first when the cache is full.
          cache.delete(source);
          cache.set(source, stmt);
        }
        return stmt;
      };
    },
  });
}

/**
 * Transactions begin IMMEDIATE: they take the write lock up front (waiting up to busy_timeout).
 * A deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
 * process (WORKERS > 1, `rapport relay`) committed in between; waiting at BEGIN cannot fail that way.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly options: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(options);
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.options);
  }
}

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
  // Checkpoint every ~40 MB of WAL instead of ~4 MB: an ingestion batch writes ~4 MB, and a
  // checkpoint (with its fsync) after every batch doubled the batch's commit time (issue 5 bench).
  raw.pragma('wal_autocheckpoint = 10000');
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(raw) }) });
  return {
    db,
    features: sqliteFeatures,
    description: `sqlite ${file}`,
    async close() {
      await db.destroy();
    },
  };
}
