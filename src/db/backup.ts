/**
 * A consistent copy of the database while the server runs, and loading one into an empty database
 * (`rapport backup` / `rapport restore`, src/backup.ts). SQLite: the online backup API of SQLite
 * through better-sqlite3 (a read transaction: writers go on). PostgreSQL: `pg_dump` in its custom
 * format (one snapshot) and `pg_restore` in a single transaction, so a failed restore leaves
 * nothing behind.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { fsyncFile } from '../lib/files.ts';
import type { Config } from '../config.ts';
import type { DialectName } from './dialect.ts';

type Where = Pick<Config, 'databaseUrl' | 'dataDir'>;

/** A backup or restore that cannot be done, with what to do about it. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** The SQLite database file of a data directory (as createDatabase opens it). */
export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'rapport.sqlite');
}

/** The SQLite database and its companions, which live in DATA_DIR beside the files but are not files of the product. */
export const SQLITE_FILE_NAMES = ['rapport.sqlite', 'rapport.sqlite-wal', 'rapport.sqlite-shm', 'rapport.sqlite-journal'];

export function dialectOf(where: Where): DialectName {
  return where.databaseUrl ? 'postgres' : 'sqlite';
}

/** The name of the database copy inside a backup. */
export function snapshotName(dialect: DialectName): string {
  return dialect === 'postgres' ? 'rapport.pgdump' : 'rapport.sqlite';
}

/** Writes a consistent copy of the configured database to `dest` (a new file). */
export async function snapshotDatabase(where: Where, dest: string): Promise<DialectName> {
  if (where.databaseUrl) {
    await run('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${dest}`], libpqEnv(where.databaseUrl));
    return 'postgres';
  }
  const file = sqliteFile(where.dataDir);
  if (!fs.existsSync(file)) throw new BackupError(`no database at ${file}: is DATA_DIR right?`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // After the first step of 100 pages the rest goes in one step: a write by the server between
    // steps restarts the copy, and one step is one read transaction, so the copy converges.
    await db.backup(dest, { progress: ({ totalPages }) => Math.max(totalPages, 100) });
  } finally {
    db.close();
  }
  return 'sqlite';
}

/** True when the configured database holds no tables (a new SQLite file counts as empty). */
export async function databaseIsEmpty(where: Where): Promise<boolean> {
  if (where.databaseUrl) {
    const client = new pg.Client({ connectionString: where.databaseUrl });
    await client.connect();
    try {
      const r = await client.query<{ n: string }>(
        `select count(*) as n from information_schema.tables where table_schema = current_schema()`,
      );
      return Number(r.rows[0]?.n ?? 0) === 0;
    } finally {
      await client.end();
    }
  }
  const file = sqliteFile(where.dataDir);
  if (!fs.existsSync(file)) return true;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare(`select count(*) as n from sqlite_master where type = 'table'`).get() as { n: number };
    return row.n === 0;
  } finally {
    db.close();
  }
}

/** Loads a copy made by snapshotDatabase into the configured database, which must be empty. */
export async function restoreDatabase(where: Where, dialect: DialectName, source: string): Promise<void> {
  if (dialect !== dialectOf(where)) {
    throw new BackupError(
      dialect === 'postgres'
        ? 'this backup is of a PostgreSQL database: set DATABASE_URL to an empty PostgreSQL database'
        : 'this backup is of a SQLite database: unset DATABASE_URL and set DATA_DIR to an empty directory',
    );
  }
  if (!(await databaseIsEmpty(where))) throw new BackupError('the target database is not empty: restore only into a new, empty database');
  if (where.databaseUrl) {
    const connection = libpqEnv(where.databaseUrl);
    // --dbname names the database only (pg_restore without it writes a script); the rest is in the environment.
    const args = [
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '--single-transaction',
      `--dbname=${connection.PGDATABASE ?? 'postgres'}`,
    ];
    await run('pg_restore', [...args, source], connection);
    return;
  }
  const target = sqliteFile(where.dataDir);
  for (const name of SQLITE_FILE_NAMES) fs.rmSync(path.join(where.dataDir, name), { force: true }); // an empty file and its companions
  const partial = `${target}.restoring`;
  fs.copyFileSync(source, partial);
  fsyncFile(partial);
  fs.renameSync(partial, target);
}

/**
 * The connection for pg_dump and pg_restore in libpq's environment variables, never on their command
 * line (where `ps` would show the password). node-postgres' own URL parameters are left out; `sslmode`
 * (or `ssl=true`, as `require`) goes through.
 */
export function libpqEnv(databaseUrl: string): Record<string, string> {
  const url = new URL(databaseUrl);
  const env: Record<string, string> = {};
  if (url.hostname) env.PGHOST = decodeURIComponent(url.hostname.replace(/^\[|\]$/g, ''));
  if (url.port) env.PGPORT = url.port;
  if (url.username) env.PGUSER = decodeURIComponent(url.username);
  if (url.password) env.PGPASSWORD = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database) env.PGDATABASE = database;
  const sslmode = url.searchParams.get('sslmode') ?? (url.searchParams.get('ssl') === 'true' ? 'require' : null);
  if (sslmode) env.PGSSLMODE = sslmode === 'no-verify' ? 'require' : sslmode;
  return env;
}

/** Runs a PostgreSQL client tool; its stderr becomes the error when it fails or is missing. */
function run(command: string, args: string[], connection: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...connection } });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        new BackupError(
          e.code === 'ENOENT'
            ? `${command} is not installed: install the PostgreSQL client tools of the server's version or newer`
            : e.message,
        ),
      ),
    );
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new BackupError(`${command} failed (exit ${code}): ${err.trim()}`))));
  });
}
