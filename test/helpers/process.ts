import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { APP_ID_CHECK_ENV, type FreshDatabase, freshDatabase } from './database.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Spawned {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

const spawned: Spawned[] = [];

/**
 * Everything the processes started since the last call have written so far, and forgets them: the
 * app_id check's teardown reads it at the end of each test file (files share a worker process, so the
 * next file starts with none).
 */
export function takeSpawnedOutputs(): string[] {
  return spawned.splice(0).map((s) => s.output());
}

/** Runs `node bin/rapport.js ...args` from the checkout with the given environment. */
export function runCli(args: string[], env: Record<string, string>, options: { input?: string } = {}): Spawned {
  const child = spawn(process.execPath, ['bin/rapport.js', ...args], {
    cwd: ROOT,
    // Rate limits off: these tests load the server from one address.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      RAPPORT_INSECURE_FAST_HASH: '1',
      RATE_LIMITS: 'off',
      MAX_EVENT_LOOP_DELAY: '0',
      ...APP_ID_CHECK_ENV,
      ...env,
    },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started: Spawned = { child, output: () => out, exited };
  spawned.push(started);
  return started;
}

/** Polls until `url` answers 200, or throws after `ms`. */
export async function waitForOk(url: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A fresh database for a file of tests that run the real process, and the servers they start:
 * `started(server)` records one, and every recorded server is killed before the database is
 * dropped, even when a test timed out.
 */
export interface ProcessDatabase {
  readonly db: FreshDatabase;
  started(server: Spawned): Spawned;
}

export function useProcessDatabase(): ProcessDatabase {
  let db: FreshDatabase | undefined;
  const servers: Spawned[] = [];
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await db?.drop();
  });
  return {
    get db() {
      if (!db) throw new Error('useProcessDatabase: the database exists once beforeAll has run');
      return db;
    },
    started(server) {
      servers.push(server);
      return server;
    },
  };
}

/**
 * `rapport serve` on 127.0.0.1:`port` on the database of `processes` (recorded there, so it is killed
 * before the database is dropped), `env` added to its environment; returned once /healthz answers.
 */
export async function serveOn(processes: ProcessDatabase, port: number, env: Record<string, string> = {}): Promise<Spawned> {
  const server = processes.started(runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', ...env }));
  await waitForOk(`http://127.0.0.1:${port}/healthz`);
  return server;
}

/**
 * `rapport serve` on a free port of 127.0.0.1 (serveOn), its log at warnings and above, with what
 * `env` gives for the server's address (e.g. PUBLIC_BASE_URL: that address) added: the address.
 */
export async function serveOnFreePort(
  processes: ProcessDatabase,
  env: (base: string) => Record<string, string> = () => ({}),
): Promise<string> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await serveOn(processes, port, { LOG_LEVEL: 'warn', ...env(base) });
  return base;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

export interface ProvisionedProject {
  appId: string;
  /** The project secret (X-App-Secret). */
  secret: string;
  /** `authorization: Bearer …` of the project's creator. */
  auth: { authorization: string };
  /** Posts one ingestion batch with the project secret. */
  ingest(batch: unknown): Promise<Response>;
}

/**
 * Through a running real server: an OAuth client (by the CLI, on `env`'s database), a registered user
 * with `phone`, and a project of theirs, with what it takes to ingest into it.
 */
/** A new OAuth client of the server's (`rapport client create --name`): its Basic authorization header. */
export async function newClient(env: Record<string, string>, name: string): Promise<string> {
  const created = runCli(['client', 'create', '--name', name], env);
  await created.exited;
  const client = JSON.parse(created.output().trim()) as { client_id: string; client_secret: string };
  return `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
}

/** A person registered by mobile number through the client `basic`, then signed in: their access token. */
export async function registerByPhone(base: string, basic: string, phone: string): Promise<string> {
  const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
  await fetch(`${base}/svcuser/oauth2/register`, { method: 'POST', headers: form, body: `phoneNum=${phone}&password=long+enough+pw` });
  const login = await fetch(`${base}/svcuser/oauth2/access_token`, {
    method: 'POST',
    headers: form,
    body: `grant_type=password&username=${phone}&password=long+enough+pw`,
  });
  return ((await login.json()) as { access_token: string }).access_token;
}

export async function provisionProject(base: string, env: Record<string, string>, phone: string): Promise<ProvisionedProject> {
  const token = await registerByPhone(base, await newClient(env, `client-${phone}`), phone);
  const auth = { authorization: `Bearer ${token}` };
  const app = await fetch(`${base}/api/v1.7/apps`, {
    method: 'POST',
    headers: { ...auth, ...JSON_HEADERS },
    body: '{"name":"Provisioned"}',
  });
  const appId = ((await app.json()) as { data: { appId: string } }).data.appId;
  const apps = (await (await fetch(`${base}/api/v1.7/my-apps`, { headers: auth })).json()) as { data: { id: string; secret: string }[] };
  const secret = apps.data.find((a) => a.id === appId)?.secret as string;
  const events = `${base}/api/v1.7/app/${appId}/events`;
  return {
    appId,
    secret,
    auth,
    ingest: (batch) => fetch(events, { method: 'POST', headers: { ...JSON_HEADERS, 'x-app-secret': secret }, body: JSON.stringify(batch) }),
  };
}

/**
 * A person registered by e-mail through a new OAuth client of the server's (`rapport client create`),
 * then signed in with their password: their user id and access token.
 */
export async function registerByEmail(
  base: string,
  env: Record<string, string>,
  person: { email: string; nickname: string; password: string },
): Promise<{ id: number; token: string }> {
  const made = runCli(['client', 'create', '--name', `client-${person.email}`], env);
  await made.exited;
  const c = JSON.parse(made.output().trim()) as { client_id: string; client_secret: string };
  const form = {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
  };
  await fetch(`${base}/svcuser/oauth2/register`, { method: 'POST', headers: form, body: new URLSearchParams(person) });
  const login = await fetch(`${base}/svcuser/oauth2/access_token`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ grant_type: 'password', username: person.email, password: person.password }),
  });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const info = await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken`, { headers: { authorization: `Bearer ${token}` } });
  return { id: ((await info.json()) as { id: number }).id, token };
}

/** Every behaviour record of a customer, by id, read page by page through the behaviour list. */
export async function behaviourRecords(base: string, p: ProvisionedProject, customerId: string): Promise<Map<string, unknown>> {
  const stored = new Map<string, unknown>();
  for (let start = 0; ; start += 100) {
    const res = await fetch(`${base}/api/v1.7/app/${p.appId}/member/customer/${customerId}/behaviour?count=100&start_index=${start}`, {
      headers: p.auth,
    });
    const page = (await res.json()) as { status: number; data: { id: string }[] };
    if (page.status !== 1) throw new Error(`behaviour list answered ${JSON.stringify(page)}`);
    for (const r of page.data) stored.set(r.id, r);
    if (page.data.length < 100) return stored;
  }
}

/** Polls `read` until `done` holds (or 20 s pass, which fails with what was last read). */
export async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: ${JSON.stringify(v).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
