/**
 * `rapport backup FILE` and `rapport restore FILE` (docs/operations.md, "Backup and restore").
 *
 * A backup is one gzipped tar, written with mode 0600 (it holds every secret the server keeps):
 * `rapport-backup.json` (what it is), `database/` (a consistent copy of the database, taken first)
 * and `files/` (everything else under DATA_DIR: uploads and rendered pages, copied after the
 * database, so that every file the copy of the database names is in the backup).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { fsyncFile } from './lib/files.ts';
import type { Config } from './config.ts';
import {
  BackupError,
  type DialectName,
  SQLITE_FILE_NAMES,
  dialectOf,
  databaseIsEmpty,
  restoreDatabase,
  snapshotDatabase,
  snapshotName,
} from './db/index.ts';

const MANIFEST = 'rapport-backup.json';
const FORMAT = 1;

interface Manifest {
  format: number;
  createdAt: string;
  database: DialectName;
  files: number;
}

type Where = Pick<Config, 'databaseUrl' | 'dataDir'>;

export interface BackupResult {
  file: string;
  database: DialectName;
  files: number;
  bytes: number;
}

/** The files under DATA_DIR that belong in a backup: all but SQLite's own (the database is copied apart). */
function productFiles(dataDir: string): string[] {
  if (!fs.existsSync(dataDir)) return [];
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (!rel && SQLITE_FILE_NAMES.includes(e.name)) continue;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.isFile()) out.push(r);
    }
  };
  walk(dataDir, '');
  return out.sort();
}

/** A working directory named `prefix…` (a path), removed afterwards: the copy of the database can be large, so not in /tmp. */
async function withWorkDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(prefix), { recursive: true });
  const dir = fs.mkdtempSync(prefix);
  fs.chmodSync(dir, 0o700);
  try {
    return await fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function backup(where: Where, file: string): Promise<BackupResult> {
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new BackupError(`${target} exists: a backup never replaces a file`);
  const dataDir = path.resolve(where.dataDir);
  if (target.startsWith(`${dataDir}${path.sep}`)) throw new BackupError('write the backup outside DATA_DIR');
  return withWorkDir(`${target}.work-`, async (work) => {
    fs.mkdirSync(path.join(work, 'database'));
    const database = await snapshotDatabase(where, path.join(work, 'database', snapshotName(dialectOf(where))));
    // After the database: a file written meanwhile is an extra, never a missing one.
    const files = productFiles(dataDir);
    const manifest: Manifest = { format: FORMAT, createdAt: new Date().toISOString(), database, files: files.length };
    fs.writeFileSync(path.join(work, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    if (files.length > 0) fs.symlinkSync(dataDir, path.join(work, 'files'));
    const partial = `${target}.partial`;
    try {
      await pipeline(
        tar.create({ gzip: true, cwd: work, portable: true, follow: true }, [MANIFEST, 'database', ...files.map((f) => `files/${f}`)]),
        fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 }),
      );
      fsyncFile(partial);
      fs.renameSync(partial, target);
    } catch (err) {
      fs.rmSync(partial, { force: true });
      throw err;
    }
    return { file: target, database, files: files.length, bytes: fs.statSync(target).size };
  });
}

export interface RestoreResult {
  database: DialectName;
  files: number;
  createdAt: string;
}

/** Loads a backup into an empty database and an empty DATA_DIR; refuses anything else and leaves it as it was. */
export async function restore(where: Where, file: string): Promise<RestoreResult> {
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new BackupError(`no backup at ${source}`);
  const dataDir = path.resolve(where.dataDir);
  const present = productFiles(dataDir);
  if (present.length > 0) throw new BackupError(`DATA_DIR ${dataDir} holds files: restore only into an empty data directory`);
  if (!(await databaseIsEmpty(where))) throw new BackupError('the target database is not empty: restore only into a new, empty database');
  // Inside DATA_DIR (empty but for it), so that the files are renamed into place on the same file system.
  return withWorkDir(path.join(dataDir, '.restore-'), async (work) => {
    try {
      await tar.extract({ file: source, cwd: work, strict: true });
    } catch (err) {
      throw new BackupError(`${source} is not a readable backup: ${(err as Error).message}`);
    }
    let manifest: Manifest;
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(work, MANIFEST), 'utf8')) as Manifest;
    } catch {
      throw new BackupError(`${source} is not a Rapport backup (no ${MANIFEST})`);
    }
    if (manifest.format !== FORMAT)
      throw new BackupError(`backup format ${manifest.format} is not known to this version (expects ${FORMAT})`);
    const snapshot = path.join(work, 'database', snapshotName(manifest.database));
    if (!fs.existsSync(snapshot)) throw new BackupError(`${source} holds no database copy`);
    fs.mkdirSync(dataDir, { recursive: true });
    await restoreDatabase(where, manifest.database, snapshot);
    // The files after the database: a restore that fails on the database leaves DATA_DIR empty.
    const files = productFiles(path.join(work, 'files'));
    for (const f of files) {
      const to = path.join(dataDir, f);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.renameSync(path.join(work, 'files', f), to);
    }
    return { database: manifest.database, files: files.length, createdAt: manifest.createdAt };
  });
}
