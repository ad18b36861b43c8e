/**
 * Page rendering figures: a 100-page deck (bench/fixtures/deck-100.pdf, made by `npm run
 * fixtures:files`) uploaded to the real server (as `npm start` runs it), then polled: how long until
 * its first page is served, how long until every page is rendered, pages per second. Twice: with the
 * renderer's thread not yet started (a server that has rendered nothing for a while), then started.
 *   node --import tsx bench/render.ts [--db sqlite|postgres]
 * `npm run bench` runs it too (the "PDF render" row).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { option } from './options.ts';
import { SERVER_ARGS, SERVER_ENV, SERVER_FLAGS, buildServer } from './server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const PG_ADMIN = process.env.RAPPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DECK = path.join(ROOT, 'bench/fixtures/deck-100.pdf');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/rapport.js', ...args], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`rapport ${args.join(' ')} exited ${code}`))));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Round {
  uploadMs: number;
  firstPageMs: number;
  fullRenderMs: number;
  pagesPerSecond: number;
  pages: number;
  peakRssMB: number;
}

async function main(): Promise<void> {
  if (!fs.existsSync(DECK)) throw new Error(`${DECK} is missing: npm run fixtures:files`);
  buildServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-bench-render-'));
  let dbName: string | null = null;
  const env: Record<string, string> = { DATA_DIR: dataDir };
  if (DB === 'postgres') {
    dbName = `rapport_bench_${randomBytes(4).toString('hex')}`;
    const c = new pg.Client(PG_ADMIN);
    await c.connect();
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
    const url = new URL(PG_ADMIN);
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
  }
  let server: ChildProcess | null = null;
  try {
    await cli(['migrate'], env);
    const client = JSON.parse(await cli(['client', 'create', '--name', 'bench'], env)) as { client_id: string; client_secret: string };
    const port = await freePort();
    server = spawn(process.execPath, [...SERVER_FLAGS, ...SERVER_ARGS], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...SERVER_ENV,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        RAPPORT_EMBEDDED_RELAY: 'false',
      },
      stdio: 'inherit',
    });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {
        // not yet
      }
      if (i > 400) throw new Error('the server never answered');
      await sleep(50);
    }
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
    const created = await fetch(`${base}/api/v1.7/apps`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Render bench' }),
    });
    const appId = ((await created.json()) as { data: { appId: string } }).data.appId;
    const deck = fs.readFileSync(DECK);

    const round = async (): Promise<Round> => {
      const body = new FormData();
      body.append('file', new Blob([deck], { type: 'application/pdf' }), 'deck-100.pdf');
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server?.pid ?? 0))), 100);
      try {
        const t0 = performance.now();
        const res = await fetch(`${base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: auth, body });
        const answer = (await res.json()) as { status: number; data: { id: string; pageCount: number } };
        if (answer.status !== 1) throw new Error(`upload refused: ${JSON.stringify(answer)}`);
        const uploadMs = performance.now() - t0;
        const id = answer.data.id;
        // The first page as a viewer would get it: the image served.
        let firstPageMs = 0;
        for (;;) {
          const page = await fetch(`${base}/api/v1.7/app/${appId}/file/${id}/page/1?width=phone`, { headers: auth });
          const type = page.headers.get('content-type') ?? '';
          await page.arrayBuffer();
          if (type.startsWith('image/')) {
            firstPageMs = performance.now() - t0;
            break;
          }
          await sleep(10);
        }
        for (;;) {
          const file = (await (await fetch(`${base}/api/v1.7/app/${appId}/file/${id}`, { headers: auth })).json()) as {
            data: { status: string; renderedPages: number; failure: string | null };
          };
          if (file.data.status === 'failed') throw new Error(`rendering failed: ${file.data.failure}`);
          if (file.data.status === 'ready') break;
          await sleep(25);
        }
        const fullRenderMs = performance.now() - t0;
        const pages = answer.data.pageCount;
        return {
          uploadMs: Math.round(uploadMs),
          firstPageMs: Math.round(firstPageMs),
          fullRenderMs: Math.round(fullRenderMs),
          // Rendering alone: from the upload's answer to the last page.
          pagesPerSecond: Number((pages / ((fullRenderMs - uploadMs) / 1000)).toFixed(1)),
          pages,
          peakRssMB: Math.round(peak / 1e6),
        };
      } finally {
        clearInterval(sampler);
      }
    };

    const cold = await round();
    const warm = await round();
    const bytes = deck.length;
    const summary = {
      database: DB,
      deck: { file: path.relative(ROOT, DECK), bytes, pages: cold.pages },
      machine: { cpus: os.cpus().length, node: process.version },
      rendererNotStarted: cold,
      rendererStarted: warm,
    };
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    if (server) {
      server.kill('SIGTERM');
      await new Promise((r) => server?.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (dbName !== null) {
      const c = new pg.Client(PG_ADMIN);
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
