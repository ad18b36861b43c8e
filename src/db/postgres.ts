import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle, DialectFeatures } from './dialect.ts';
import type { Database } from './schema.ts';

// BIGINT (epoch milliseconds, counters) arrives as a JS number: every value we store fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export const postgresFeatures: DialectFeatures = {
  name: 'postgres',
  skipLocked: true,
  maxParameters: 65535,
  arrayParameters: true,
  autoIncrementType: 'serial',
  autoIncrementPrimaryKey: (col) => col.primaryKey(),
  transactionLock: async (trx, key) => {
    await sql`select pg_advisory_xact_lock(${key})`.execute(trx);
  },
};

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres (unparseable URL)';
  }
}

export function openPostgres(url: string, poolSize = 10): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    features: postgresFeatures,
    description: `postgres ${redactUrl(url)}`,
    async close() {
      await db.destroy();
    },
  };
}
