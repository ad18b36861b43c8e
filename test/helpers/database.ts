import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** The database the suite runs on: RAPPORT_TEST_DB=sqlite (default) or postgres. */
export const TEST_DIALECT = (process.env.RAPPORT_TEST_DB ?? 'sqlite') as 'sqlite' | 'postgres';
if (TEST_DIALECT !== 'sqlite' && TEST_DIALECT !== 'postgres') {
  throw new Error(`RAPPORT_TEST_DB must be sqlite or postgres, got ${String(TEST_DIALECT)}`);
}

/**
 * The app_id check (src/db/app-id-check.ts) as the suite runs it: on for PostgreSQL runs
 * (vitest.config.ts), handed to every server a test starts, in-process or as a child process.
 */
export const APP_ID_CHECK_ENV: Record<string, string> = process.env.RAPPORT_APP_ID_CHECK
  ? { RAPPORT_APP_ID_CHECK: process.env.RAPPORT_APP_ID_CHECK }
  : {};

/** Server used to create and drop the per-file PostgreSQL databases. */
export const PG_ADMIN_URL = process.env.RAPPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface FreshDatabase {
  /** Settings for loadConfig: DATABASE_URL or DATA_DIR. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A new, empty database for one test file; dropped afterwards. Never reuses another run's state. */
export async function freshDatabase(dialect: 'sqlite' | 'postgres' = TEST_DIALECT): Promise<FreshDatabase> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-test-'));
    return {
      env: { DATA_DIR: dir },
      async drop() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `rapport_test_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
