/**
 * Share-link figures: the real server (as `npm start` runs it) on a fresh database, a 3-page deck
 * shared by a link, then with autocannon:
 * - the viewer page, `GET /l/{shareToken}`, at 64 connections (it writes nothing; target p99 ≤ 20 ms);
 * - beacons at 32 connections, each connection one view: its open, then heartbeats with growing
 *   dwell, every one a small durable write through the group commit (ingestion's single-record targets).
 *   node --import tsx bench/viewer.ts [--db sqlite|postgres] [--duration S]
 * - the site snippet's collect calls (docs/site-tracking.md) at 32 connections, each connection one
 *   visitor of an allowed origin: a page view, its leave and a key behaviour per call; half the
 *   visitors identified (their records are a customer's behaviour records), half anonymous (kept).
 * `npm run bench` runs it too (the "viewer page", "beacons" and "collect" rows).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { PHONE_UA } from '../test/helpers/browser.ts';
import { option } from './options.ts';
import { SERVER_ARGS, SERVER_ENV, SERVER_FLAGS, buildServer } from './server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const DURATION = Number(option('duration', '10'));
const PG_ADMIN = process.env.RAPPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DECK = path.join(ROOT, 'test/fixtures/files/deck.pdf');
const UA = PHONE_UA;

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

interface Figures {
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  failures: number;
  peakRssMB: number;
}

async function measure(pid: number, options: autocannon.Options, ok: (status: number, body: string) => boolean): Promise<Figures> {
  let failures = 0;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 100);
  try {
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const requests = (options.requests ?? [{}]).map((r) => ({
        ...r,
        onResponse(status: number, body: string) {
          if (!ok(status, body)) failures += 1;
        },
      }));
      autocannon({ ...options, requests }, (err, res) => (err ? reject(err) : resolve(res)));
    });
    return {
      reqPerSec: Math.round(result.requests.average),
      p50ms: result.latency.p50,
      p99ms: result.latency.p99,
      requests: result.requests.total,
      failures: failures + result.errors + result.timeouts,
      peakRssMB: Math.round(peak / 1e6),
    };
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<void> {
  buildServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-bench-viewer-'));
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
      // Its log lines go to stderr: stdout carries only this script's figures (npm run bench parses them).
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server.stdout?.pipe(process.stderr);
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
    const auth = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const appId = (
      (await (await fetch(`${base}/api/v1.7/apps`, { method: 'POST', headers: json, body: '{"name":"Viewer bench"}' })).json()) as {
        data: { appId: string };
      }
    ).data.appId;
    const body = new FormData();
    body.append('file', new Blob([fs.readFileSync(DECK)], { type: 'application/pdf' }), 'deck.pdf');
    const fileId = (
      (await (await fetch(`${base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: auth, body })).json()) as {
        data: { id: string };
      }
    ).data.id;
    for (;;) {
      const f = (await (await fetch(`${base}/api/v1.7/app/${appId}/file/${fileId}`, { headers: auth })).json()) as {
        data: { status: string };
      };
      if (f.data.status === 'ready') break;
      if (f.data.status === 'failed') throw new Error('the deck failed to render');
      await sleep(50);
    }
    const link = (
      (await (
        await fetch(`${base}/api/v1.7/app/${appId}/links`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ name: 'Bench deck', file_id: fileId }),
        })
      ).json()) as { data: { shareToken: string } }
    ).data;
    const pagePath = `/l/${link.shareToken}`;
    const pid = server.pid ?? 0;

    // The viewer page: 64 connections, a phone's browser.
    await measure(pid, { url: `${base}${pagePath}`, connections: 64, duration: 2, headers: { 'user-agent': UA } }, (s) => s === 200);
    const page = await measure(
      pid,
      { url: `${base}${pagePath}`, connections: 64, duration: DURATION, headers: { 'user-agent': UA } },
      (s) => s === 200,
    );

    // Beacons: a view per connection (tokens from page loads), opened, then heartbeats.
    const CONNECTIONS = 32;
    const tokens: string[] = [];
    for (let i = 0; i < CONNECTIONS * 4; i += 1) {
      const html = await (await fetch(`${base}${pagePath}`, { headers: { 'user-agent': UA } })).text();
      tokens.push(String((JSON.parse(/id="rapport-viewer">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}') as { token: string }).token));
    }
    let nextToken = 0;
    const beaconRequest = (label: string): autocannon.Request => ({
      method: 'POST',
      path: `${pagePath}/events`,
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA },
      setupRequest(req, ctx) {
        const c = ctx as { token?: string; seq?: number; t0?: number; label?: string };
        if (c.token === undefined || c.label !== label) {
          c.token = tokens[nextToken++ % tokens.length];
          c.seq = 0;
          c.t0 = Date.now();
          c.label = label;
        }
        c.seq = (c.seq ?? 0) + 1;
        const elapsed = Date.now() - (c.t0 ?? 0);
        const page = 1 + (Math.floor(c.seq / 50) % 3);
        const beacon =
          c.seq === 1
            ? { type: 'open', seq: 1, token: c.token, page: 1 }
            : { type: c.seq % 50 === 0 ? 'page' : 'hb', seq: c.seq, token: c.token, page, dwell: { [page]: elapsed } };
        return { ...req, body: JSON.stringify(beacon) };
      },
    });
    const accepted = (s: number, b: string) => s === 200 && b.startsWith('{"status":1');
    await measure(pid, { url: base, connections: CONNECTIONS, duration: 2, requests: [beaconRequest('warm')] }, accepted);
    const beacons = await measure(
      pid,
      { url: base, connections: CONNECTIONS, duration: DURATION, requests: [beaconRequest('run')] },
      accepted,
    );

    // The site snippet's collect calls: the project's origin allowed, a customer to identify as.
    const ORIGIN = 'https://shop.example.com';
    await fetch(`${base}/api/v1.7/app/${appId}`, { method: 'POST', headers: json, body: JSON.stringify({ site_origins: ORIGIN }) });
    const siteSettings = (
      (await (await fetch(`${base}/api/v1.7/app/${appId}/site`, { headers: auth })).json()) as {
        data: { siteKey: string; siteSecret: string };
      }
    ).data;
    await fetch(`${base}/api/v1.7/app/${appId}/events`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(
        Array.from({ length: CONNECTIONS }, (_, i) => ({
          event_type: 'create',
          domainType: 'Customer',
          domainId: `bench-site-${i}`,
          body: { name: `Site visitor ${i}` },
        })),
      ),
    });
    let nextVisitor = 0;
    const collectRequest = (label: string): autocannon.Request => ({
      method: 'POST',
      path: `/t/collect?k=${siteSettings.siteKey}`,
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN },
      setupRequest(req, ctx) {
        const c = ctx as { visitor?: string; visit?: string; n?: number; i?: number; label?: string };
        const now = Date.now();
        const events: Record<string, unknown>[] = [];
        if (c.visitor === undefined || c.label !== label) {
          c.i = nextVisitor++;
          c.visitor = randomBytes(16).toString('base64url');
          c.visit = randomBytes(16).toString('base64url');
          c.n = 0;
          c.label = label;
          events.push({ t: 'visit', at: now, url: `${ORIGIN}/`, title: 'Home', ref: 'https://www.example.org/', kw: '' });
          if (c.i % 2 === 0) {
            const customerId = `bench-site-${c.i % CONNECTIONS}`;
            events.push({
              t: 'identify',
              customerId,
              hash: createHmac('sha256', siteSettings.siteSecret).update(customerId).digest('hex'),
            });
          }
        }
        c.n = (c.n ?? 0) + 1;
        const pageId = randomBytes(12).toString('base64url');
        events.push(
          { t: 'page', id: pageId, at: now, url: `${ORIGIN}/p/${c.n % 20}`, title: `Page ${c.n % 20}` },
          { t: 'leave', id: pageId, at: now, since: now - 1000, ms: 900, url: `${ORIGIN}/p/${c.n % 20}`, title: `Page ${c.n % 20}` },
          { t: 'act', id: randomBytes(12).toString('base64url'), at: now, a: 'download_file', target: `${ORIGIN}/brochure.pdf` },
        );
        return { ...req, body: JSON.stringify({ v: c.visitor, s: c.visit, e: events }) };
      },
    });
    await measure(pid, { url: base, connections: CONNECTIONS, duration: 2, requests: [collectRequest('warm')] }, accepted);
    const collect = await measure(
      pid,
      { url: base, connections: CONNECTIONS, duration: DURATION, requests: [collectRequest('run')] },
      accepted,
    );

    console.log(
      JSON.stringify(
        { database: DB, machine: { cpus: os.cpus().length, node: process.version }, seconds: DURATION, viewerPage: page, beacons, collect },
        null,
        2,
      ),
    );
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
