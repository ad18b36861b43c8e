/**
 * A bench script's own server: a fresh database, the server started as `npm start` runs it
 * (bench/server.ts), and everything removed again when the script ends, fails or is interrupted.
 * Also the pieces of it that `npm run bench` (bench/run.ts) and the in-process scripts use alone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildServer, spawnServer } from './server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
/** The PostgreSQL server the benches make their databases on. */
export const PG_ADMIN = process.env.RAPPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP port free on 127.0.0.1 at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A process's resident set in bytes (0 once it is gone). */
export function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * CPU time (user and system, ms) a process has used so far, from /proc/<pid>/stat (clock ticks of
 * 10 ms): steadier than a rate on a shared machine. 0 when it cannot be read.
 */
export function cpuMsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** Runs `rapport <args>` (bin/rapport.js) against the database `env` names; resolves with its stdout. */
export function cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/rapport.js', ...args], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`rapport ${args.join(' ')} exited ${code}`))));
  });
}

/** Waits until `url` answers 2xx (20 s at the most). */
export async function waitOk(url: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await sleep(50);
  }
  throw new Error(`${url} never answered`);
}

const interrupted: (() => Promise<void>)[] = [];

function onSignal(signal: NodeJS.Signals): void {
  const cleanups = interrupted.splice(0).reverse();
  void (async () => {
    for (const cleanup of cleanups) await cleanup().catch((err: unknown) => console.error(err));
    process.exit(signal === 'SIGINT' ? 130 : 143);
  })();
}

/**
 * Runs `cleanup` if the process is interrupted (SIGINT, SIGTERM) before the returned function is
 * called; the latest registered runs first. The script then exits.
 */
export function cleanUpOnInterrupt(cleanup: () => Promise<void>): () => void {
  if (interrupted.length === 0) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  interrupted.push(cleanup);
  return () => {
    const i = interrupted.indexOf(cleanup);
    if (i >= 0) interrupted.splice(i, 1);
    if (interrupted.length === 0) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  };
}

/** Runs `fn` once however often the returned function is called. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => (done ??= fn());
}

export interface FreshDatabase {
  /** DATA_DIR and/or DATABASE_URL: what the server and the CLI need to use it. */
  env: Record<string, string>;
  /** Removes the directory and drops the PostgreSQL database (once; later calls do nothing). */
  drop(): Promise<void>;
}

/**
 * A fresh, empty database: on SQLite a new temporary DATA_DIR (`rapport-bench-<label>…`), on
 * PostgreSQL (`db` is `postgres`) a new database at PG_ADMIN; with `dataDir`, a temporary DATA_DIR
 * for the files (uploads, rendered pages) there too.
 */
export async function freshDatabase(db: string, label = '', options: { dataDir?: boolean } = {}): Promise<FreshDatabase> {
  const dir = db !== 'postgres' || options.dataDir ? fs.mkdtempSync(path.join(os.tmpdir(), `rapport-bench-${label}`)) : null;
  const env: Record<string, string> = dir === null ? {} : { DATA_DIR: dir };
  let name: string | null = null;
  if (db === 'postgres') {
    name = `rapport_bench_${randomBytes(4).toString('hex')}`;
    try {
      await admin(`CREATE DATABASE ${name}`);
    } catch (err) {
      if (dir !== null) fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    const url = new URL(PG_ADMIN);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
  }
  const drop = once(async () => {
    if (dir !== null) fs.rmSync(dir, { recursive: true, force: true });
    if (name !== null) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  return { env, drop };
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client(PG_ADMIN);
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export interface BenchServerOptions {
  /** `sqlite` or `postgres`. */
  db: string;
  /** Names the temporary directory (`rapport-bench-<label>-…`). */
  label: string;
  /** More server environment, over the defaults (RAPPORT_EMBEDDED_RELAY=false, LOG_LEVEL=warn, …). */
  env?: Record<string, string>;
}

export interface BenchServer {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  pid: number;
  /** The database's DATA_DIR and/or DATABASE_URL, as the CLI needs them. */
  env: Record<string, string>;
  /** An OAuth client made by `rapport client create` before the server started. */
  client: { client_id: string; client_secret: string };
  /** Runs `rapport <args>` on the server's database. */
  cli(args: string[]): Promise<string>;
  /** The server's resident set in bytes now. */
  rss(): number;
  /** Registers the bench user, logs in and creates a project named `appName`. */
  signIn(appName: string): Promise<BenchSession>;
  /** Stops the server and removes its database (once; later calls do nothing). */
  stop(): Promise<void>;
}

export interface BenchSession {
  token: string;
  appId: string;
  /** The bearer token's header. */
  auth: { authorization: string };
  /** The bearer token's header with a JSON content type. */
  json: { authorization: string; 'content-type': string };
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Builds the server, makes a fresh database (with a temporary DATA_DIR on both dialects), migrates
 * it, creates an OAuth client, and starts the server as `npm start` does (SERVER_FLAGS, SERVER_ENV,
 * BENCH_NODE_FLAGS included) on a free port of 127.0.0.1, resolving once /healthz answers. The
 * server's stdout goes to this process's stderr: a script's stdout carries only its figures, which
 * `npm run bench` parses. On failure, and on SIGINT or SIGTERM until `stop()`, everything is
 * removed again.
 */
export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  buildServer();
  const database = await freshDatabase(options.db, `${options.label}-`, { dataDir: true });
  let server: ChildProcess | null = null;
  const stop = once(async () => {
    release();
    if (server) await stopped(server);
    await database.drop();
  });
  const release = cleanUpOnInterrupt(stop);
  try {
    const env = database.env;
    await cli(['migrate'], env);
    const client = JSON.parse(await cli(['client', 'create', '--name', 'bench'], env)) as { client_id: string; client_secret: string };
    const port = await freePort();
    server = spawnServer(
      { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RAPPORT_EMBEDDED_RELAY: 'false', ...options.env },
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    server.stdout?.pipe(process.stderr);
    const base = `http://127.0.0.1:${port}`;
    await waitOk(`${base}/healthz`);
    const pid = server.pid ?? 0;
    return {
      base,
      pid,
      env,
      client,
      cli: (args) => cli(args, env),
      rss: () => rssOf(pid),
      signIn: (appName) => signIn(base, client, appName),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function signIn(base: string, client: { client_id: string; client_secret: string }, appName: string): Promise<BenchSession> {
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
  await fetch(`${base}/svcuser/oauth2/register`, { method: 'POST', headers: form, body: 'phoneNum=13900000000&password=bench+password' });
  const login = await fetch(`${base}/svcuser/oauth2/access_token`, {
    method: 'POST',
    headers: form,
    body: 'grant_type=password&username=13900000000&password=bench+password',
  });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const created = await fetch(`${base}/api/v1.7/apps`, { method: 'POST', headers: json, body: JSON.stringify({ name: appName }) });
  const appId = ((await created.json()) as { data: { appId: string } }).data.appId;
  return { token, appId, auth, json };
}
