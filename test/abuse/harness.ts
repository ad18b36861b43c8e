/**
 * The abuse suite's harness: a real server process started as `npm start` starts it (the production
 * heap cap and malloc setting, rate limits on), users and projects made through its HTTP API, and the
 * measurements every attack is judged by: the process survived, its memory (the process and any child
 * it started), and how long another user's request took while the attack ran.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { APP_ID_CHECK_ENV, type FreshDatabase, freshDatabase } from '../helpers/database.ts';
import { type Spawned, freePort, runCli, waitForOk } from '../helpers/process.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The flags `npm start` gives node (package.json's start script). */
export const PRODUCTION_NODE_FLAGS = ['--max-old-space-size=256'];
export const PRODUCTION_ENV = { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' };

export interface AbuseServer {
  base: string;
  pid: number;
  /** The database settings (DATA_DIR or DATABASE_URL), for the CLI. */
  env: Record<string, string>;
  /** `authorization: Basic …` of an OAuth client made by the CLI. */
  basic: string;
  /** Everything the process has written so far. */
  output(): string;
  /** False once the process has exited. */
  alive(): boolean;
}

/**
 * A fresh database and a server process on it for one test file, started before its tests and killed
 * (then the database dropped) after them. `env` adds to or overrides the defaults.
 */
export function useAbuseServer(env: Record<string, string> = {}): { readonly server: AbuseServer } {
  let db: FreshDatabase | undefined;
  let child: Spawned | undefined;
  let server: AbuseServer | undefined;
  beforeAll(async () => {
    db = await freshDatabase();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let out = '';
    let exited = false;
    const proc = spawn(process.execPath, [...PRODUCTION_NODE_FLAGS, 'bin/rapport.js', 'serve'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...PRODUCTION_ENV,
        RAPPORT_INSECURE_FAST_HASH: '1',
        LOG_LEVEL: 'warn',
        ...APP_ID_CHECK_ENV,
        ...db.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
    proc.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
    const exitedP = new Promise<number | null>((resolve) =>
      proc.on('exit', (code) => {
        exited = true;
        resolve(code);
      }),
    );
    child = { child: proc, output: () => out, exited: exitedP };
    await waitForOk(`${base}/healthz`, 30_000);
    const created = runCli(['client', 'create', '--name', 'abuse suite'], db.env);
    await created.exited;
    const client = JSON.parse(created.output().trim()) as { client_id: string; client_secret: string };
    server = {
      base,
      pid: proc.pid as number,
      env: db.env,
      basic: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      output: () => out,
      alive: () => !exited,
    };
  });
  afterAll(async () => {
    if (child) {
      child.child.kill('SIGKILL');
      await child.exited;
    }
    await db?.drop();
  });
  return {
    get server() {
      if (!server) throw new Error('useAbuseServer: the server exists once beforeAll has run');
      return server;
    },
  };
}

export interface AbuseUser {
  id: number;
  token: string;
  auth: { authorization: string };
}

let phoneSeq = 0;
/** A fresh phone number, distinct within the run. */
export function abusePhone(): string {
  phoneSeq += 1;
  return `139${String(process.pid % 10000).padStart(4, '0')}${String(phoneSeq).padStart(4, '0')}`;
}

/** Registers and logs in a new platform user. */
export async function signUp(s: AbuseServer, phone = abusePhone()): Promise<AbuseUser> {
  const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: s.basic };
  const reg = await fetch(`${s.base}/svcuser/oauth2/register`, {
    method: 'POST',
    headers: form,
    body: `phoneNum=${phone}&password=long+enough+pw`,
  });
  if (!reg.ok) throw new Error(`register answered ${reg.status} ${await reg.text()}`);
  const login = await fetch(`${s.base}/svcuser/oauth2/access_token`, {
    method: 'POST',
    headers: form,
    body: `grant_type=password&username=${phone}&password=long+enough+pw`,
  });
  const token = ((await login.json()) as { access_token: string }).access_token;
  if (!token) throw new Error('log-in gave no token');
  const auth = { authorization: `Bearer ${token}` };
  const me = (await (await fetch(`${s.base}/svcuser/oauth2/getUserInfoByAccessToken`, { headers: auth })).json()) as { id: number };
  return { id: Number(me.id), token, auth };
}

export interface AbuseProject {
  appId: string;
  secret: string;
}

/** A project created by `owner`. */
export async function createProject(s: AbuseServer, owner: AbuseUser, name = 'Abuse project'): Promise<AbuseProject> {
  const res = await fetch(`${s.base}/api/v1.7/apps`, {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const appId = ((await res.json()) as { data: { appId: string } }).data.appId;
  const apps = (await (await fetch(`${s.base}/api/v1.7/my-apps`, { headers: owner.auth })).json()) as {
    data: { id: string; secret: string }[];
  };
  return { appId, secret: apps.data.find((a) => a.id === appId)?.secret as string };
}

/** Adds `member` to the project with `role` (Sales or Admin), as `owner`. */
export async function addMember(s: AbuseServer, owner: AbuseUser, appId: string, member: AbuseUser, role = 'Sales'): Promise<void> {
  const res = await fetch(`${s.base}/api/v1.7/app/${appId}/members`, {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ svc_user_id: member.id, role }),
  });
  const body = (await res.json()) as { status: number };
  if (body.status !== 1) throw new Error(`adding a member answered ${JSON.stringify(body)}`);
}

/**
 * An owner's project (named `name`) with two Sales members, `sales` and their `colleague`, and a
 * stranger with a project of their own ("Other").
 */
export async function salesTeam(
  s: AbuseServer,
  name: string,
): Promise<{ owner: AbuseUser; sales: AbuseUser; colleague: AbuseUser; stranger: AbuseUser; project: AbuseProject; other: AbuseProject }> {
  const [owner, sales, colleague, stranger] = await Promise.all([signUp(s), signUp(s), signUp(s), signUp(s)]);
  const project = await createProject(s, owner, name);
  const other = await createProject(s, stranger, 'Other');
  await addMember(s, owner, project.appId, sales);
  await addMember(s, owner, project.appId, colleague);
  return { owner, sales, colleague, stranger, project, other };
}

/** What the server answered a call: its HTTP status, and its JSON body ({} when the body is not JSON, e.g. an HTML 404). */
export interface AbuseAnswer {
  status: number;
  body: { status?: number; code?: string; msg?: string; error?: string; data?: Record<string, unknown> & { id?: string } };
}

/** A call of `user`'s (null: with no credentials) to `route`; `body` sent as it is when a string, else as JSON. */
export async function apiCall(s: AbuseServer, user: AbuseUser | null, method: string, route: string, body?: unknown): Promise<AbuseAnswer> {
  const headers = { ...(user === null ? {} : user.auth), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const res = await fetch(`${s.base}${route}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: AbuseAnswer['body'] = {};
  try {
    parsed = JSON.parse(text) as AbuseAnswer['body'];
  } catch {
    // Not JSON.
  }
  return { status: res.status, body: parsed };
}

/**
 * The first column of the first row of a read-only query on the server's database (`?` for each
 * parameter; numbered for PostgreSQL here): what an attack left stored, seen from outside the process.
 */
export async function readScalar(s: AbuseServer, query: string, params: unknown[] = []): Promise<unknown> {
  if (s.env.DATABASE_URL !== undefined) {
    const client = new pg.Client({ connectionString: s.env.DATABASE_URL });
    await client.connect();
    try {
      let n = 0;
      const row = (
        await client.query(
          query.replace(/\?/g, () => `$${(n += 1)}`),
          params,
        )
      ).rows[0] as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    } finally {
      await client.end();
    }
  }
  const db = new Sqlite(path.join(s.env.DATA_DIR as string, 'rapport.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare(query).get(...params) as Record<string, unknown> | undefined;
    return row === undefined ? undefined : Object.values(row)[0];
  } finally {
    db.close();
  }
}

/** Resident memory in MB of `pid` and every process descending from it (a renderer child, say). */
export function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  let kb = 0;
  const todo = [pid];
  while (todo.length > 0) {
    const p = todo.pop() as number;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      // gone meanwhile
    }
    todo.push(...(children.get(p) ?? []));
  }
  return kb / 1024;
}

export interface UnderAttack<T> {
  result: T;
  /** The slowest of the probe's answers while the attack ran, in ms (a probe that failed counts as Infinity). */
  worstMs: number;
  /** How many probe requests were made. */
  probes: number;
  /** The highest resident memory of the server (and its children) seen meanwhile, in MB. */
  peakRssMb: number;
}

/**
 * Runs `attack` while another user's `probe` request is made one after another (with `gapMs` between)
 * and the server's memory is sampled every 50 ms. The probe must answer 2xx to count as answered.
 */
export async function underAttack<T>(
  s: AbuseServer,
  attack: () => Promise<T>,
  probe: () => Promise<Response>,
  gapMs = 100,
): Promise<UnderAttack<T>> {
  let done = false;
  let worstMs = 0;
  let probes = 0;
  let peakRssMb = treeRssMb(s.pid);
  const sampler = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, treeRssMb(s.pid));
  }, 50);
  const probing = (async () => {
    // The first probe goes once the attack has started.
    await new Promise((r) => setTimeout(r, 20));
    while (!done) {
      const t0 = performance.now();
      let ms: number;
      try {
        const res = await probe();
        await res.arrayBuffer();
        ms = res.ok ? performance.now() - t0 : Number.POSITIVE_INFINITY;
      } catch {
        ms = Number.POSITIVE_INFINITY;
      }
      worstMs = Math.max(worstMs, ms);
      probes += 1;
      await new Promise((r) => setTimeout(r, gapMs));
    }
  })();
  let result: T;
  try {
    result = await attack();
  } finally {
    done = true;
    clearInterval(sampler);
    await probing;
  }
  // Measured once the probe under way when the attack ended has answered: it counts too.
  return { result, worstMs, probes, peakRssMb: Math.max(peakRssMb, treeRssMb(s.pid)) };
}
