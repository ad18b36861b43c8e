/**
 * Makes a fresh database, starts the real server (`node bin/rapport.js serve`) as a child process,
 * generates the dataset through the ingestion API, then drives every scenario and a bare node:http
 * baseline of the same response size with autocannon, one after the other, and prints a table and a
 * JSON summary. Every figure is also given as a ratio to the baseline of the same run. The summary
 * goes to bench/results/<db>[-<size>][-workersN][-partial].json (no size for the default dataset),
 * replacing the previous result of the same kind. See docs/performance.md.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { consoleFirstRow } from './console.ts';
import { cli, cpuMsOf, freePort, freshDatabase, rssOf, waitOk } from './instance.ts';
import { flag, option } from './options.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { type Dataset, LOADS, SCENARIOS, type Scenario } from './scenarios.ts';
import { SERVER_ARGS, SERVER_ENV, SERVER_FLAGS, buildServer } from './server.ts';

const USAGE = `Usage: npm run bench -- [options]

  --db sqlite|postgres         database (default sqlite; postgres at RAPPORT_BENCH_PG_URL or 127.0.0.1:5432)
  --size quick|small|default   dataset (default: 1,000,000 customers, 10,000,000 behaviour records)
  --quick                      the quick dataset, 3 s per scenario: checks the harness in about a minute
  --duration S                 seconds per scenario (default 10, 3 with --quick)
  --connections N              autocannon connections (default 64)
  --records N                  N behaviour records for the big customer and N spread over 1,000 customers,
                               instead of the size's (comparing ingestion: with --only none, generation only)
  --only "a,b"                 only the scenarios whose names contain one of these
  --keep                       keep the database and its description in .bench/
  --reuse                      measure the kept dataset again without generating it
  --node-flags "..."           extra node flags for the server (after the default heap flag)
  --load-duration S            seconds of each write-load scenario after its warm-up (default 60, 5 with --quick)
  --relay                      run the embedded event relay in the server during the run
  --no-scores                  no record of the generation earns points (no key pages, no forms phase)
  --soak MINUTES               instead of the scenarios: the mixed load at half the server's capacity for
                               MINUTES, reporting throughput and RSS every 30 s (npm run soak; quick dataset
                               unless --size is given)
  --help                       this text

WORKERS=N in the environment runs the server with N HTTP workers.
The summary is written to bench/results/<db>[-<size>][-workersN][-partial].json.`;

if (flag('help')) {
  console.log(USAGE);
  process.exit(0);
}

const ROOT = path.resolve(import.meta.dirname, '..');
const QUICK = flag('quick');
const DB = option('db', 'sqlite') as 'sqlite' | 'postgres';
const SOAK_MINUTES = Number(option('soak', '0'));
const SIZE = QUICK ? 'quick' : option('size', SOAK_MINUTES > 0 ? 'quick' : 'default');
const DURATION = Number(option('duration', QUICK ? '3' : '10'));
const CONNECTIONS = Number(option('connections', '64'));
// --only "customer list,password": the scenarios whose names contain any of these substrings.
const ONLY = option('only', '');
const ONLY_PARTS = ONLY.split(',').filter(Boolean);
const selected = (name: string): boolean => ONLY_PARTS.length === 0 || ONLY_PARTS.some((p) => name.includes(p));
// --node-flags "--max-semi-space-size=4 …": extra node flags for the server, after SERVER_FLAGS so that
// they override them (A/B of V8 settings, e.g. --max-old-space-size=160).
const NODE_FLAGS = option('node-flags', '').split(' ').filter(Boolean);
const LOAD_DURATION = Number(option('load-duration', QUICK ? '5' : '60'));
const LOAD_WARMUP = QUICK ? 2 : 10;
const LOAD_CONNECTIONS = 32;
const RELAY = flag('relay');
/** `--no-scores`: no key pages and no forms phase: no record of the generation earns points (docs/scoring.md). */
const NO_SCORES = flag('no-scores');

const PRESETS = {
  quick: { customers: 2_000, big: 10_000, small: 1_000, spread: 9_000, calls: 1_000, links: 100, viewLogs: 5_000 },
  small: { customers: 100_000, big: 100_000, small: 1_000, spread: 899_000, calls: 10_000, links: 1_000, viewLogs: 100_000 },
  default: { customers: 1_000_000, big: 100_000, small: 1_000, spread: 9_899_000, calls: 100_000, links: 10_000, viewLogs: 1_000_000 },
} as const;
const sized = PRESETS[SIZE as keyof typeof PRESETS];
if (!sized) throw new Error(`--size must be one of ${Object.keys(PRESETS).join(', ')}`);
/** `--records N`: N behaviour records for the big customer and N spread over the others, instead of the size's (ingestion A/B runs). */
const RECORDS = option('records', '');
if (RECORDS !== '' && !/^[1-9]\d{0,8}$/.test(RECORDS)) throw new Error('--records must be a positive whole number');
const preset = RECORDS === '' ? sized : { ...sized, big: Number(RECORDS), spread: Number(RECORDS) };

/** `--keep` saves the generated dataset's description here; `--reuse` measures it again without generating. */
const SAVED = path.join(ROOT, '.bench', `dataset-${DB}-${SIZE}.json`);
const KEEP = flag('keep');
const REUSE = flag('reuse');

/** --reuse on a database that is gone would measure a fresh empty one: refuse instead. */
async function assertKept(env: Record<string, string>): Promise<void> {
  const gone = () => new Error(`the kept ${DB} dataset is gone (${JSON.stringify(env)}): generate it again with --keep`);
  if (env.DATA_DIR !== undefined) {
    if (!fs.existsSync(path.join(env.DATA_DIR, 'rapport.sqlite'))) throw gone();
    return;
  }
  const c = new pg.Client(env.DATABASE_URL);
  try {
    await c.connect();
  } catch {
    throw gone();
  } finally {
    await c.end().catch(() => {});
  }
}

async function call(base: string, method: string, url: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${base}${url}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : null) as Record<string, unknown> & { data: unknown } };
}

/** The server process the dataset is generated through (its CPU time is measured per phase). */
let serverPid = 0;
/** Server CPU ms per 1,000 records of each generation phase, by the phase's figure name. */
const cpuPer1000: Record<string, number> = {};

/**
 * Sends batches of ingestion events, two requests in flight; returns records per second, and keeps
 * the server's CPU time per 1,000 records under `phase`.
 */
async function ingest(
  base: string,
  appId: string,
  secret: string,
  total: number,
  make: (i: number) => unknown,
  phase?: string,
): Promise<number> {
  const started = performance.now();
  const cpu0 = cpuMsOf(serverPid);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const from = next;
      next = Math.min(total, next + 1000);
      const batch = Array.from({ length: next - from }, (_, j) => make(from + j));
      const res = await call(
        base,
        'POST',
        `/api/v1.7/app/${appId}/events`,
        { 'content-type': 'application/json', 'x-app-secret': secret },
        JSON.stringify(batch),
      );
      if (res.json?.status !== 1) throw new Error(`ingestion failed: ${JSON.stringify(res.json).slice(0, 500)}`);
    }
  };
  await Promise.all([worker(), worker()]);
  if (phase !== undefined && serverPid > 0) cpuPer1000[phase] = ((cpuMsOf(serverPid) - cpu0) / total) * 1000;
  return total / ((performance.now() - started) / 1000);
}

const ev = (domainType: string, domainId: string, body: Record<string, unknown>) => ({ event_type: 'create', domainType, domainId, body });
const DAY = 24 * 3600 * 1000;
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

async function generate(base: string, env: Record<string, string>) {
  const t0 = performance.now();
  const client = JSON.parse(await cli(['client', 'create', '--name', 'bench'], env)) as { client_id: string; client_secret: string };
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
  const username = '13900000000';
  const password = 'bench password';
  await call(base, 'POST', '/svcuser/oauth2/register', form, `phoneNum=${username}&password=${encodeURIComponent(password)}`);
  const login = await call(
    base,
    'POST',
    '/svcuser/oauth2/access_token',
    form,
    `grant_type=password&username=${username}&password=${encodeURIComponent(password)}`,
  );
  const token = String((login.json as unknown as { access_token: string }).access_token);
  const refreshToken = String((login.json as unknown as { refresh_token: string }).refresh_token);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' };
  const appId = String(((await call(base, 'POST', '/api/v1.7/apps', auth, 'name=Bench')).json.data as { appId: string }).appId);
  // The other 19 of the project's 20 members.
  for (let i = 0; i < 19; i++) {
    const reg = await call(
      base,
      'POST',
      '/svcuser/oauth2/register',
      form,
      `phoneNum=1390000${String(i + 1).padStart(4, '0')}&password=${encodeURIComponent(password)}`,
    );
    const memberToken = String((reg.json as unknown as { access_token: string }).access_token);
    const info = await call(base, 'GET', '/svcuser/oauth2/getUserInfoByAccessToken', { authorization: `Bearer ${memberToken}` });
    const id = (info.json as unknown as { id: number }).id;
    const added = await call(base, 'POST', `/api/v1.7/app/${appId}/members`, auth, `svc_user_id=${id}`);
    if (added.json?.status !== 1) throw new Error(`adding member ${id} failed: ${JSON.stringify(added.json)}`);
  }
  const secret = String(((await call(base, 'GET', '/api/v1.7/my-apps', auth)).json.data as { id: string; secret: string }[])[0]?.secret);
  // The site's pricing pages are key pages (docs/scoring.md): a third of the site visits below earn points.
  // A server without scoring answers 404 and scores nothing: the same records, for before/after comparisons.
  if (!NO_SCORES) {
    const scoring = await fetch(`${base}/api/v1.7/app/${appId}/scoring`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ site_key_pages: ['example.com/pricing'] }),
    });
    await scoring.arrayBuffer();
  }
  const now = Date.now();
  const figures: Record<string, number> = {};
  figures.customersPerSecond = await ingest(base, appId, secret, preset.customers, (i) =>
    ev('Customer', `c${i}`, { name: `Customer ${i}`, phone: `138${String(i).padStart(8, '0')}` }),
  );
  figures.linksPerSecond = await ingest(base, appId, secret, preset.links, (i) =>
    ev('Link', `l${i}`, { name: `Link ${i}`, type: 2, website: 'https://example.com', creatorId: '1', tags: [`tag${i % 7}`] }),
  );
  figures.viewLogsPerSecond = await ingest(base, appId, secret, preset.viewLogs, (i) =>
    ev('LinkViewLog', `v${i}`, {
      linkId: i < preset.viewLogs / 2 ? 'l0' : `l${i % preset.links}`,
      viewTime: fmt(now - (i % 90) * DAY),
      viewerId: `visitor${i % 5000}`,
    }),
  );
  figures.callsPerSecond = await ingest(base, appId, secret, preset.calls, (i) =>
    ev('Call', `k${i}`, {
      fromUserType: 2,
      fromUserId: '1',
      toUserType: 1,
      toUserId: `c${i % preset.customers}`,
      callStatus: i % 2,
      callTime: fmt(now - (i % 300) * 3600_000),
      duration: i % 1200,
    }),
  );
  const behaviour = (customer: string) => (i: number) => {
    const when = fmt(now - (i % 200) * DAY - (i % 86_400) * 1000);
    const kind = i % 3;
    if (kind === 0) return ev('BehaviourLog', `${customer}-b${i}`, { customerId: customer, action: 'send_message', when });
    if (kind === 1)
      return ev('BehaviourLog', `${customer}-b${i}`, {
        customerId: customer,
        action: 'visit_record',
        when,
        content: JSON.stringify({ customer_id: customer }),
      });
    return ev('BehaviourLog', `${customer}-b${i}`, {
      customerId: customer,
      action: 'access_site',
      when,
      content: JSON.stringify({
        web_access_log_id: `w${i}`,
        title: `Page ${i % 13}`,
        site: 'example.com',
        url: `https://example.com/${i % 9 === 2 ? 'pricing' : 'blog'}/${i % 13}`,
      }),
    });
  };
  figures.behaviourPerSecondBig = await ingest(base, appId, secret, preset.big, behaviour('c0'), 'behaviourCpuMsPer1000Big');
  await ingest(base, appId, secret, preset.small, behaviour('c1'));
  // The rest spread over 1,000 customers, as the ingestion target says.
  figures.behaviourPerSecond = await ingest(
    base,
    appId,
    secret,
    preset.spread,
    (i) => behaviour(`c${2 + (i % Math.min(1000, preset.customers - 2))}`)(i),
    'behaviourCpuMsPer1000',
  );
  // Forms filled in by a fifth of the customers over the last two weeks, in batches over 1,000 customers:
  // every record earns points, so each batch keeps 1,000 scores (the hot leads' customers).
  if (!NO_SCORES)
    figures.scoredPerSecond = await ingest(
      base,
      appId,
      secret,
      Math.floor(preset.customers / 5),
      (i) => ev('BehaviourLog', `s${i}`, { customerId: `c${i * 5}`, action: 'submit_form', when: fmt(now - (i % 1209) * 1000 * 1000) }),
      'scoredCpuMsPer1000',
    );
  Object.assign(figures, cpuPer1000);
  figures.generationSeconds = (performance.now() - t0) / 1000;
  const dataset: Dataset = {
    appId,
    token,
    refreshToken,
    basic,
    username,
    password,
    customerId: `c${Math.floor(preset.customers / 3)}`,
    bigCustomerId: 'c0',
    smallCustomerId: 'c1',
    phone: `138${String(Math.floor(preset.customers / 2)).padStart(8, '0')}`,
    linkId: 'l0',
    customers: preset.customers,
  };
  return { dataset, figures };
}

interface Measured {
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  bytes: number;
}

/**
 * Runs a load generator (bench/drive.ts, bench/load.ts) as a fresh child process (drive.ts says
 * why): waits for it to be ready, sends it `message`, and returns its one reply.
 */
async function generator<T>(script: string, message: unknown): Promise<T> {
  const child = fork(path.join(ROOT, script), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  try {
    const next = () =>
      new Promise<unknown>((resolve, reject) => {
        child.once('message', resolve);
        child.once('exit', (code) => reject(new Error(`the load generator exited (${code})`)));
      });
    await next();
    const replied = next();
    child.send(message as object);
    const reply = (await replied) as T | { error: string };
    if (typeof reply === 'object' && reply !== null && 'error' in reply) throw new Error(`autocannon: ${reply.error}`);
    return reply as T;
  } finally {
    child.kill('SIGTERM');
  }
}

/** One measurement by autocannon. */
function drive(url: string, s: Scenario | null, d: Dataset | null, duration: number): Promise<Measured> {
  return generator<Measured>('bench/drive.ts', {
    url,
    connections: CONNECTIONS,
    duration,
    method: s?.method ?? 'GET',
    headers: s && d ? s.headers(d) : {},
    ...(s?.body && d ? { body: s.body(d) } : {}),
  });
}

/** One write-load measurement by bench/load.ts. */
function driveLoad(spec: LoadSpec): Promise<LoadResult> {
  return generator<LoadResult>('bench/load.ts', spec);
}

/**
 * Webhook delivery throughput: bench/events.ts on its own fresh database of the same dialect (one
 * relay draining committed events to a local receiver in signed batches), run after the HTTP
 * scenarios so it does not share the cores with them.
 */
async function webhookDelivery(): Promise<Record<string, unknown>[]> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/events.ts', '--db', DB, '--events', QUICK ? '5000' : '20000'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/events.ts exited ${code}`))));
  });
  const r = JSON.parse(out.slice(out.indexOf('{'))) as {
    createToReceipt: { p50ms: number; p99ms: number };
    createToLiveStream: { p50ms: number; p95ms: number; p99ms: number };
    relayThroughput: { eventsPerSecond: number };
  };
  return [
    {
      scenario: 'webhook delivery (events/s; p50/p99 create→receipt)',
      reqPerSec: r.relayThroughput.eventsPerSecond,
      p50ms: r.createToReceipt.p50ms,
      p99ms: r.createToReceipt.p99ms,
      target: 'report',
      met: '-',
    },
    {
      scenario: `live stream (p50/p99 create→owner's stream; p95 ${r.createToLiveStream.p95ms} ms)`,
      reqPerSec: null,
      p50ms: r.createToLiveStream.p50ms,
      p99ms: r.createToLiveStream.p99ms,
      target: 'p95 ≤ 2000 ms',
      met: r.createToLiveStream.p95ms <= 2000 ? 'yes' : 'no',
    },
  ];
}

/**
 * Page rendering: bench/render.ts (its own fresh database of the same dialect and the real server)
 * uploads the 100-page deck and times its first page and its full render, with the renderer's
 * thread not yet started (the figure reported here; the started one is in `renderStarted`).
 */
async function pdfRender(): Promise<Record<string, unknown>> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/render.ts', '--db', DB], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/render.ts exited ${code}`))));
  });
  type Round = { firstPageMs: number; fullRenderMs: number; pagesPerSecond: number; peakRssMB: number };
  const r = JSON.parse(out.slice(out.indexOf('{'))) as { rendererNotStarted: Round; rendererStarted: Round };
  const cold = r.rendererNotStarted;
  return {
    scenario: 'PDF render pages/s (100-page deck: first page, full render)',
    reqPerSec: cold.pagesPerSecond,
    firstPageMs: cold.firstPageMs,
    fullRenderMs: cold.fullRenderMs,
    renderStarted: r.rendererStarted,
    target: 'first page ≤ 2000 ms, all ≤ 30000 ms',
    met: cold.firstPageMs <= 2000 && cold.fullRenderMs <= 30_000 ? 'yes' : 'NO',
    peakRssMB: cold.peakRssMB,
  };
}

/**
 * Customer import and export: bench/dataops.ts (its own fresh database of the same dialect and the
 * real server with the relay running) imports a generated CSV (1,000,000 rows, 100,000 with --quick;
 * 5 % duplicates, 1 % invalid) as a job and exports every customer as CSV.
 */
async function dataOps(): Promise<Record<string, unknown>[]> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/dataops.ts', '--db', DB, ...(QUICK ? ['--quick'] : [])], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/dataops.ts exited ${code}`))));
  });
  type Figures = { rowsPerSecond: number; peakRssMB: number };
  const r = JSON.parse(out.slice(out.indexOf('{'))) as {
    rows: number;
    import: Figures & { totalMs: number };
    export: Figures & { ms: number; rows: number };
  };
  const target = DB === 'postgres' ? 5000 : 10_000;
  return [
    {
      scenario: `import (rows/s, ${r.rows} rows, 5 % duplicates, 1 % invalid, relay running)`,
      reqPerSec: r.import.rowsPerSecond,
      totalMs: r.import.totalMs,
      target: `≥ ${target} rows/s, RSS ≤ 250 MB`,
      met: r.import.rowsPerSecond >= target && r.import.peakRssMB <= 250 ? 'yes' : 'NO',
      peakRssMB: r.import.peakRssMB,
    },
    {
      scenario: `export (rows/s, ${r.export.rows} rows, CSV)`,
      reqPerSec: r.export.rowsPerSecond,
      totalMs: r.export.ms,
      target: 'report',
      met: '-',
      peakRssMB: r.export.peakRssMB,
    },
  ];
}

/**
 * Customer merge: bench/merge.ts (its own fresh database of the same dialect) merges customers with
 * 100,000 history records each: the merge's commit latency, and the background move of the history.
 */
async function mergeFigures(): Promise<Record<string, unknown>> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/merge.ts', '--db', DB], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/merge.ts exited ${code}`))));
  });
  const r = JSON.parse(out.slice(out.indexOf('{'))) as {
    commitMs: number[];
    commitMedianMs: number;
    commitMaxMs: number;
    backgroundMoveMs: number[];
    backgroundRecordsPerSecond: number;
  };
  return {
    scenario: 'merge (a customer with 100,000 history records: commit latency)',
    p50ms: r.commitMedianMs,
    maxMs: r.commitMaxMs,
    commitMs: r.commitMs,
    backgroundMoveMs: r.backgroundMoveMs,
    backgroundRecordsPerSec: r.backgroundRecordsPerSecond,
    target: 'commit ≤ 200 ms',
    met: r.commitMaxMs <= 200 ? 'yes' : 'NO',
  };
}

/**
 * Reading analytics: bench/analytics.ts (its own fresh database of the same dialect, the app
 * in-process) asks for the analytics of a link with 100,000 views (10,000 with --quick): the answer's time.
 */
async function analyticsFigures(): Promise<Record<string, unknown>> {
  const out = await new Promise<string>((resolve, reject) => {
    const args = ['--import', 'tsx', 'bench/analytics.ts', '--db', DB, ...(QUICK ? ['--views', '10000'] : [])];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/analytics.ts exited ${code}`))));
  });
  type Timing = { p50ms: number; p95ms: number; maxMs: number };
  const r = JSON.parse(out.slice(out.indexOf('{'))) as { views: number; analytics: Timing; oneVersion: Timing; csv: Timing };
  return {
    scenario: `link analytics (a link with ${r.views.toLocaleString('en-US')} views; CSV of every viewer ${Math.round(r.csv.p50ms)} ms)`,
    p50ms: r.analytics.p50ms,
    p95ms: r.analytics.p95ms,
    oneVersionP50ms: r.oneVersion.p50ms,
    target: 'p95 ≤ 500 ms',
    met: r.analytics.p95ms <= 500 ? 'yes' : 'NO',
  };
}

/**
 * Sequence enrolment: bench/sequences.ts (its own fresh database of the same dialect and the real
 * server) enrols every customer of a 100,000-customer project in one sequence as one job (whatever the
 * dataset's size: the figure is about the job): the job's time from the request to done.
 */
async function sequenceEnrolFigures(): Promise<Record<string, unknown>> {
  const out = await new Promise<string>((resolve, reject) => {
    const args = ['--import', 'tsx', 'bench/sequences.ts', '--db', DB, '--customers', '100000'];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/sequences.ts exited ${code}`))));
  });
  const r = JSON.parse(out.slice(out.indexOf('{'))) as {
    customers: number;
    enrolled: number;
    requestMs: number;
    seconds: number;
    enrolmentsPerSec: number;
    peakRssMB: number;
  };
  return {
    scenario: `sequence enrol 100k (${r.customers} customers, all matching, one job)`,
    seconds: r.seconds,
    requestMs: r.requestMs,
    enrolmentsPerSec: r.enrolmentsPerSec,
    enrolled: r.enrolled,
    peakRssMB: r.peakRssMB,
    target: 'job ≤ 60 s',
    met: r.enrolled === r.customers && r.seconds <= 60 ? 'yes' : 'NO',
  };
}

/**
 * The share-link viewer: bench/viewer.ts (its own fresh database of the same dialect and the real
 * server) drives the viewer page at 64 connections and beacons at 32, one view per connection, and the
 * site snippet's collect calls at 32, one site visitor per connection.
 */
async function viewerFigures(): Promise<Record<string, unknown>[]> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/viewer.ts', '--db', DB, '--duration', String(DURATION)], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/viewer.ts exited ${code}`))));
  });
  type Figures = { reqPerSec: number; p50ms: number; p99ms: number; failures: number; peakRssMB: number };
  const r = JSON.parse(out.slice(out.indexOf('{'))) as { viewerPage: Figures; beacons: Figures; collect: Figures };
  // Beacons are single small durable writes: the single-record ingestion targets.
  const ingestion = LOADS.find((l) => l.name === 'single-record ingestion');
  const rate = ingestion ? ingestion.rate[DB === 'sqlite' ? 0 : 1] : 0;
  const p99 = ingestion ? ingestion.p99All[DB === 'sqlite' ? 0 : 1] : 0;
  return [
    {
      scenario: 'viewer page (GET /l/{token}, 64 connections; writes nothing)',
      ...r.viewerPage,
      target: 'p99 ≤ 20 ms',
      met: r.viewerPage.p99ms <= 20 && r.viewerPage.failures === 0 ? 'yes' : 'NO',
    },
    {
      scenario: 'beacons (32 connections, one view each; durable writes)',
      ...r.beacons,
      target: `≥ ${rate}/s, p99 ≤ ${p99} ms`,
      met: r.beacons.reqPerSec >= rate && r.beacons.p99ms <= p99 && r.beacons.failures === 0 ? 'yes' : 'NO',
    },
    {
      // The site snippet (docs/site-tracking.md): three records a call, half the visitors identified.
      scenario: 'collect (POST /t/collect, 32 connections, one site visitor each; durable writes)',
      ...r.collect,
      target: `≥ ${rate}/s, p99 ≤ ${p99} ms`,
      met: r.collect.reqPerSec >= rate && r.collect.p99ms <= p99 && r.collect.failures === 0 ? 'yes' : 'NO',
    },
  ];
}

/**
 * Sequence steps: bench/sequence-steps.ts (its own fresh database of the same dialect and the real server)
 * enrols customers in a sequence whose first step is an e-mail and reports steps sent per second,
 * from the enrolment call to the last mail accepted by a local SMTP server.
 */
async function sequenceStepFigures(): Promise<Record<string, unknown>> {
  const out = await new Promise<string>((resolve, reject) => {
    const args = ['--import', 'tsx', 'bench/sequence-steps.ts', '--db', DB, '--customers', QUICK ? '2000' : '10000'];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/sequence-steps.ts exited ${code}`))));
  });
  const r = JSON.parse(out.slice(out.indexOf('{'))) as {
    customers: number;
    received: number;
    seconds: number;
    stepsPerSec: number;
    peakRssMB: number;
  };
  return {
    scenario: 'sequence steps (e-mail steps through the runner and the campaign sender, local SMTP)',
    stepsPerSec: r.stepsPerSec,
    customers: r.customers,
    seconds: r.seconds,
    failures: r.customers - r.received,
    peakRssMB: r.peakRssMB,
    target: 'report',
  };
}

/**
 * Campaign mail: bench/mail.ts (its own fresh database of the same dialect and the real server)
 * sends one campaign to a local SMTP server and reports mails per second from create to done.
 */
async function mailFigures(): Promise<Record<string, unknown>> {
  const out = await new Promise<string>((resolve, reject) => {
    const args = ['--import', 'tsx', 'bench/mail.ts', '--db', DB, '--recipients', QUICK ? '2000' : '10000'];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/mail.ts exited ${code}`))));
  });
  const r = JSON.parse(out.slice(out.indexOf('{'))) as {
    recipients: number;
    sent: number;
    seconds: number;
    mailsPerSec: number;
    peakRssMB: number;
  };
  return {
    scenario: 'campaign mail (one campaign to a local SMTP server, 5 pooled connections)',
    mailsPerSec: r.mailsPerSec,
    recipients: r.recipients,
    seconds: r.seconds,
    failures: r.recipients - r.sent,
    peakRssMB: r.peakRssMB,
    target: '≥ 200 mails/s',
    met: r.mailsPerSec >= 200 && r.sent === r.recipients ? 'yes' : 'NO',
  };
}

/**
 * Playbook lag: bench/playbooks.ts (its own fresh database of the same dialect and the real server)
 * sends behaviour records at a steady pace, one in five a form that a playbook acts on, and reports
 * each run's time from the record to the run with its actions (the runs API's `lagMs`).
 */
async function playbookLag(): Promise<Record<string, unknown>> {
  const out = await new Promise<string>((resolve, reject) => {
    const args = ['--import', 'tsx', 'bench/playbooks.ts', '--db', DB, '--forms', QUICK ? '200' : '1000'];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/playbooks.ts exited ${code}`))));
  });
  const r = JSON.parse(out.slice(out.indexOf('{'))) as {
    records: number;
    recordsPerSec: number;
    forms: number;
    runs: number;
    p50ms: number;
    p95ms: number;
    maxMs: number;
    peakRssMB: number;
  };
  return {
    scenario: `playbook lag (record to action; ${r.recordsPerSec} records/s, ${r.forms} forms acted on)`,
    p50ms: r.p50ms,
    p95ms: r.p95ms,
    maxMs: r.maxMs,
    failures: r.forms - r.runs,
    peakRssMB: r.peakRssMB,
    target: 'p95 ≤ 2000 ms',
    met: r.p95ms <= 2000 && r.runs === r.forms ? 'yes' : 'NO',
  };
}

/**
 * `--soak MINUTES`: the mixed load's capacity is measured for 10 s at full speed, then the same load
 * runs at half that rate for MINUTES in 30 s slices; each slice reports its throughput, p99 and the
 * server's RSS (at the end of the slice and its peak). Flat RSS is the target.
 */
async function soak(base: string, dataset: Dataset, serverPid: number, peak: { reset(): number }): Promise<Record<string, unknown>> {
  const mixed = LOADS.find((l) => l.name.startsWith('mixed')) as (typeof LOADS)[number];
  const apps = await call(base, 'GET', '/api/v1.7/my-apps', { authorization: `Bearer ${dataset.token}` });
  const secret = String((apps.json.data as { id: string; secret: string }[]).find((a) => a.id === dataset.appId)?.secret);
  const spec = (duration: number, tag: string, rate?: number): LoadSpec => ({
    base,
    appId: dataset.appId,
    secret,
    token: dataset.token,
    customers: Math.min(1000, dataset.customers - 2),
    cycle: mixed.cycle(dataset),
    connections: LOAD_CONNECTIONS,
    duration,
    runTag: `${tag}${Date.now().toString(36)}`,
    ...(rate ? { rate } : {}),
  });
  const capacity = await driveLoad(spec(10, 'cap'));
  const rate = Math.max(1, Math.round(capacity.all.requests / capacity.seconds / 2));
  console.error(`capacity ${Math.round(capacity.all.requests / capacity.seconds)} req/s; soaking at ${rate} req/s for ${SOAK_MINUTES} min`);
  const slices: Record<string, unknown>[] = [];
  const started = performance.now();
  peak.reset();
  while ((performance.now() - started) / 60_000 < SOAK_MINUTES) {
    const m = await driveLoad(spec(30, 'soak', rate));
    const row = {
      minute: Number(((performance.now() - started) / 60_000).toFixed(1)),
      reqPerSec: Math.round(m.all.requests / m.seconds),
      p99ms: m.all.p99,
      readP99ms: m.read.p99,
      failures: m.all.failures,
      rssMB: Math.round(rssOf(serverPid) / 1e6),
      peakRssMB: Math.round(peak.reset() / 1e6),
    };
    console.error(JSON.stringify(row));
    slices.push(row);
  }
  const rss = slices.map((r) => r.rssMB as number);
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return {
    measuredAt: new Date().toISOString(),
    database: DB,
    size: SIZE,
    workers: Number(process.env.WORKERS ?? '1'),
    minutes: SOAK_MINUTES,
    capacityReqPerSec: Math.round(capacity.all.requests / capacity.seconds),
    rateReqPerSec: rate,
    // RSS of the last three slices against the first three (after the first slice's warm-up).
    rssGrowthMB: Math.round(avg(rss.slice(-3)) - avg(rss.slice(1, 4))),
    failures: slices.reduce((a, r) => a + (r.failures as number), 0),
    slices,
  };
}

async function main() {
  buildServer();
  const saved = REUSE
    ? (JSON.parse(fs.readFileSync(SAVED, 'utf8')) as { env: Record<string, string>; dataset: Dataset; figures: Record<string, number> })
    : null;
  if (saved) await assertKept(saved.env);
  const db = saved ? { env: saved.env, drop: async () => {} } : await freshDatabase(DB);
  const port = await freePort();
  const env = { ...db.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RAPPORT_EMBEDDED_RELAY: RELAY ? 'true' : 'false' };
  // As `npm start` runs it (package.json): the heap cap and the malloc setting are part of how the server is run.
  const server: ChildProcess = spawn(process.execPath, [...SERVER_FLAGS, ...NODE_FLAGS, ...SERVER_ARGS], {
    cwd: ROOT,
    env: { ...process.env, ...SERVER_ENV, ...env },
    stdio: 'inherit',
  });
  const base = `http://127.0.0.1:${port}`;
  // The peak of each scenario (reset before it) and of the whole run (generation included).
  let peakRss = 0;
  let runPeakRss = 0;
  const sampler = setInterval(() => {
    const rss = rssOf(server.pid ?? 0);
    peakRss = Math.max(peakRss, rss);
    runPeakRss = Math.max(runPeakRss, rss);
  }, 100);
  try {
    await waitOk(`${base}/healthz`);
    console.error(saved ? `measuring the kept ${SIZE} dataset on ${DB} again…` : `generating the ${SIZE} dataset on ${DB}…`);
    serverPid = server.pid ?? 0;
    const { dataset, figures } = saved ?? (await generate(base, db.env));
    if (KEEP && !saved) {
      fs.mkdirSync(path.dirname(SAVED), { recursive: true });
      fs.writeFileSync(SAVED, JSON.stringify({ env: db.env, dataset, figures }));
    }
    console.error(`generated in ${figures.generationSeconds?.toFixed(1)} s`);
    if (SOAK_MINUTES > 0) {
      const result = await soak(base, dataset, server.pid ?? 0, {
        reset: () => {
          const p = peakRss;
          peakRss = 0;
          return p;
        },
      });
      console.table(result.slices as Record<string, unknown>[]);
      const file = path.join(ROOT, 'bench/results', `soak-${DB}${SIZE === 'default' ? '' : `-${SIZE}`}.json`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
      console.error(`RSS growth ${String(result.rssGrowthMB)} MB; wrote ${path.relative(ROOT, file)}`);
      return;
    }
    const rows: Record<string, unknown>[] = [];
    for (const s of SCENARIOS) {
      if (!selected(s.name)) continue;
      const probe = await call(base, s.method, s.path(dataset), s.headers(dataset), s.body?.(dataset));
      if (probe.status === 404) {
        rows.push({ scenario: s.name, note: 'endpoint not present: skipped' });
        continue;
      }
      const duration = s.reportOnly && s.name.startsWith('password') ? Math.min(DURATION, 5) : DURATION;
      peakRss = rssOf(server.pid ?? 0);
      const m = await drive(`${base}${s.path(dataset)}`, s, dataset, duration);
      const scenarioRss = peakRss;
      const bport = await freePort();
      const baseline = fork(path.join(ROOT, 'bench/baseline.ts'), [], {
        env: { ...process.env, PORT: String(bport), BYTES: String(Math.round(m.bytes)) },
        execArgv: ['--import', 'tsx'],
        stdio: 'ignore',
      });
      await new Promise<void>((r) => baseline.once('message', () => r()));
      const b = await drive(`http://127.0.0.1:${bport}/`, null, null, duration);
      baseline.kill('SIGTERM');
      const ratio = b.reqPerSec > 0 ? m.reqPerSec / b.reqPerSec : 0;
      const target = s.target[DB === 'sqlite' ? 0 : 1];
      rows.push({
        scenario: s.name,
        reqPerSec: Math.round(m.reqPerSec),
        p50ms: m.p50,
        p99ms: m.p99,
        baselineReqPerSec: Math.round(b.reqPerSec),
        ratio: Number(ratio.toFixed(3)),
        target: s.reportOnly ? 'report' : `≥ ${target}`,
        met: s.reportOnly ? '-' : ratio >= target ? 'yes' : 'NO',
        non2xx: m.non2xx,
        errors: m.errors,
        responseBytes: Math.round(m.bytes),
        peakRssMB: Math.round(scenarioRss / 1e6),
      });
    }
    // The write loads come last: they add records (and run on a server that has served the reads).
    const loads = LOADS.filter((l) => selected(l.name));
    if (loads.length > 0) {
      const apps = await call(base, 'GET', '/api/v1.7/my-apps', { authorization: `Bearer ${dataset.token}` });
      const secret = String((apps.json.data as { id: string; secret: string }[]).find((a) => a.id === dataset.appId)?.secret);
      const target = (t: [number, number]) => t[DB === 'sqlite' ? 0 : 1];
      for (const l of loads) {
        const spec = (duration: number, tag: string): LoadSpec => ({
          base,
          appId: dataset.appId,
          secret,
          token: dataset.token,
          customers: Math.min(1000, dataset.customers - 2),
          cycle: l.cycle(dataset),
          connections: LOAD_CONNECTIONS,
          duration,
          runTag: `${tag}${Date.now().toString(36)}`,
        });
        await driveLoad(spec(LOAD_WARMUP, 'warm'));
        peakRss = rssOf(server.pid ?? 0);
        const m = await driveLoad(spec(LOAD_DURATION, 'load'));
        const perSecond = m.all.requests / m.seconds;
        const writesPerSecond = m.write.requests / m.seconds;
        const rate = l.name.startsWith('single') ? writesPerSecond : perSecond;
        const met =
          rate >= target(l.rate) && m.all.p99 <= target(l.p99All) && (l.p99Reads === undefined || m.read.p99 <= target(l.p99Reads));
        rows.push({
          scenario: l.name,
          reqPerSec: Math.round(perSecond),
          recordsPerSec: Math.round(writesPerSecond),
          p50ms: m.all.p50,
          p99ms: m.all.p99,
          readP99ms: m.read.requests > 0 ? m.read.p99 : undefined,
          writeP99ms: m.write.p99,
          target: `≥ ${target(l.rate)}/s, p99 ≤ ${target(l.p99All)} ms${l.p99Reads ? `, reads ≤ ${target(l.p99Reads)} ms` : ''}`,
          met: met ? 'yes' : 'NO',
          failures: m.all.failures,
          seconds: Math.round(m.seconds),
          peakRssMB: Math.round(peakRss / 1e6),
        });
      }
    }
    if (selected('webhook delivery')) rows.push(...(await webhookDelivery()));
    if (selected('PDF render')) rows.push(await pdfRender());
    if (selected('merge')) rows.push(await mergeFigures());
    if (selected('link analytics')) rows.push(await analyticsFigures());
    if (selected('viewer page') || selected('beacons') || selected('collect')) rows.push(...(await viewerFigures()));
    if (selected('console first row')) {
      const c = await consoleFirstRow(base, dataset);
      rows.push(
        'skipped' in c
          ? { scenario: 'console first row', note: c.skipped }
          : {
              scenario: 'console first row (375 px, 4× CPU, cold cache)',
              p50ms: c.medianMs,
              runsMs: c.runsMs.join(' '),
              mainThreadMs: c.medianMainThreadMs,
              mainThreadRunsMs: c.mainThreadMs.join(' '),
              ...(c.profile ? { profile: c.profile } : {}),
              target: '≤ 1500 ms (median of 5)',
              met: c.medianMs <= 1500 ? 'yes' : 'NO',
            },
      );
    }
    if (selected('campaign mail')) rows.push(await mailFigures());
    if (selected('playbook lag')) rows.push(await playbookLag());
    if (selected('sequence steps')) rows.push(await sequenceStepFigures());
    if (selected('sequence enrol 100k')) rows.push(await sequenceEnrolFigures());
    if (selected('import') || selected('export')) rows.push(...(await dataOps()));
    const big = rows.find((r) => r.scenario === 'overview, big customer')?.reqPerSec as number | undefined;
    const small = rows.find((r) => r.scenario === 'overview, small customer')?.reqPerSec as number | undefined;
    const summary = {
      measuredAt: new Date().toISOString(),
      database: DB,
      size: SIZE,
      dataset: preset,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      workers: Number(process.env.WORKERS ?? '1'),
      relay: RELAY ? 'on (the embedded relay)' : 'off during the run (RAPPORT_EMBEDDED_RELAY=false); measured apart by bench/events.ts',
      loadConnections: LOAD_CONNECTIONS,
      loadSeconds: LOAD_DURATION,
      machine: { cpus: os.cpus().length, memoryGB: Math.round(os.totalmem() / 1e9), node: process.version },
      generation: Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.round(v * 10) / 10])),
      ingestionTarget: DB === 'sqlite' ? '≥ 50,000 records/s' : '≥ 20,000 records/s',
      overviewBigVsSmall: big && small ? Number((big / small).toFixed(3)) : null,
      serverPeakRssMB: Math.round(runPeakRss / 1e6),
      scenarios: rows,
    };
    console.table(rows);
    console.log(JSON.stringify(summary, null, 2));
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    const workers = Number(process.env.WORKERS ?? '1');
    // One file per kind of run, replaced by the next run of that kind: the latest result (git keeps the
    // earlier ones). The default dataset's results are bench/results/sqlite.json and postgres.json.
    const tag = `${DB}${SIZE === 'default' ? '' : `-${SIZE}`}${workers > 1 ? `-workers${workers}` : ''}${ONLY ? '-partial' : ''}`;
    const file = path.join(ROOT, 'bench/results', `${tag}.json`);
    fs.writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
    console.error(`wrote ${path.relative(ROOT, file)}`);
  } finally {
    clearInterval(sampler);
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    if (KEEP || saved) console.error(`kept the database: ${JSON.stringify(db.env)} (measure it again: --reuse)`);
    else await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
