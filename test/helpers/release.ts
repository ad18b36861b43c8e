import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { DialectName } from '../../src/db/dialect.ts';
import { type FreshDatabase, freshDatabase } from './database.ts';

/**
 * A database made by the previous release, as a plain SQL dump per dialect
 * (test/fixtures/release/<dialect>.sql, written by `npm run release:fixture`, docs/migrations.md).
 * The dump is data: nothing in src/ takes part in loading it, so it stays what that release made.
 */
export function releaseFixtureFile(dialect: DialectName): string {
  return path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'), 'test/fixtures/release', `${dialect}.sql`);
}

/** Known values inside the fixture, to read back through the server after the upgrade. */
export const RELEASE_FIXTURE = {
  /** An access token of the project's Master, valid until 2100. */
  masterToken: 'release-fixture-master-token',
  masterPhone: '13900000001',
  appId: 'app-release-fixture',
  customerId: 'cus-release-fixture-1',
  customerName: 'Zoë O\'Brien "the customer" 中文',
} as const;

/** A new database of `dialect` holding the previous release's fixture, not yet migrated. */
export async function loadReleaseFixture(dialect: DialectName): Promise<FreshDatabase> {
  const dump = fs.readFileSync(releaseFixtureFile(dialect), 'utf8');
  const fresh = await freshDatabase(dialect);
  try {
    if (dialect === 'sqlite') {
      const raw = new SqliteDatabase(sqliteFile(fresh));
      try {
        raw.exec(dump);
      } finally {
        raw.close();
      }
    } else {
      // One client of its own: the dump sets the session's search_path to nothing.
      const client = new pg.Client({ connectionString: fresh.env.DATABASE_URL });
      await client.connect();
      try {
        await client.query(dump);
      } finally {
        await client.end();
      }
    }
  } catch (err) {
    await fresh.drop();
    throw err;
  }
  return fresh;
}

export function sqliteFile(fresh: FreshDatabase): string {
  return path.join(fresh.env.DATA_DIR as string, 'rapport.sqlite');
}

/**
 * The whole database as SQL that recreates it on an empty one: schema objects with their stored
 * text, every row, the AUTOINCREMENT counters. On PostgreSQL pg_dump's plain output, less the
 * psql-only `\restrict` lines of recent pg_dump releases (their key is random on every run).
 */
export function dumpDatabase(fresh: FreshDatabase, dialect: DialectName): string {
  if (dialect === 'postgres') {
    const out = execFileSync(
      'pg_dump',
      ['--no-owner', '--no-privileges', '--column-inserts', '--dbname', fresh.env.DATABASE_URL as string],
      { encoding: 'utf8', maxBuffer: 64 << 20 },
    );
    return out
      .split('\n')
      .filter((line) => !/^\\(un)?restrict /.test(line))
      .join('\n');
  }
  const raw = new SqliteDatabase(sqliteFile(fresh), { readonly: true });
  try {
    const objects = raw.prepare(`select type, name, sql from sqlite_master where sql is not null order by rowid`).all() as {
      type: string;
      name: string;
      sql: string;
    }[];
    // Foreign keys off while loading (as the sqlite3 shell's .dump): rows go in table by table.
    const lines = ['PRAGMA foreign_keys=OFF;', 'BEGIN TRANSACTION;'];
    for (const o of objects) {
      if (o.type !== 'table' || o.name.startsWith('sqlite_')) continue;
      lines.push(`${o.sql};`);
      lines.push(...insertsOf(raw, o.name));
    }
    if (objects.some((o) => o.name === 'sqlite_sequence')) {
      lines.push('DELETE FROM sqlite_sequence;', ...insertsOf(raw, 'sqlite_sequence'));
    }
    // Indexes and triggers after the rows: triggers must not fire for rows being restored.
    for (const o of objects) if (o.type !== 'table') lines.push(`${o.sql};`);
    lines.push('COMMIT;');
    return `${lines.join('\n')}\n`;
  } finally {
    raw.close();
  }
}

function insertsOf(raw: SqliteDatabase.Database, table: string): string[] {
  const stmt = raw.prepare(`select * from "${table}" order by rowid`).safeIntegers(true);
  const columns = stmt.columns().map((c) => `"${c.name}"`);
  return (stmt.raw(true).all() as unknown[][]).map(
    (values) => `INSERT INTO "${table}" (${columns.join(',')}) VALUES(${values.map(sqliteLiteral).join(',')});`,
  );
}

function sqliteLiteral(v: unknown): string {
  if (v === null) return 'NULL';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`no SQL literal for ${v}`);
    return String(v);
  }
  if (Buffer.isBuffer(v)) return `X'${v.toString('hex')}'`;
  return `'${String(v).replace(/'/g, "''")}'`;
}
