/**
 * Makes a fresh database, starts the real server (`node bin/rapport.js serve`) as a child process,
 * generates the dataset through the ingestion API, then drives every scenario and a bare node:http
 * baseline of the same response size with autocannon, one after the other, and prints a table and a
 * JSON summary. Every figure is also given as a ratio to the baseline of the same run. The summary
 * goes to bench/results/<db>[-<size>][-workersN][-partial].json (no size for the default dataset),
 * replacing the previous result of the same kind. See docs/performance.md.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { consoleFirstRow } from './console.ts';
import { PRESETS, appSecret, call, generate } from './dataset.ts';
import { freePort, freshDatabase, rssOf, waitOk } from './instance.ts';
import { flag, option } from './options.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { type Dataset, LOADS, SCENARIOS, type Scenario } from './scenarios.ts';
import {
  dataOps,
  mailFigures,
  analyticsFigures,
  mergeFigures,
  pdfRender,
  playbookLag,
  roomFigures,
  sequenceEnrolFigures,
  sequenceStepFigures,
  viewerFigures,
  watermarkFigures,
  webhookDelivery,
} from './script-rows.ts';
import { buildServer, spawnServer } from './server.ts';
import { askScript, forkScript } from './support/child.ts';
import { runMain } from './support/report.ts';

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

interface Measured {
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  bytes: number;
}

/** One measurement by autocannon. */
function drive(url: string, s: Scenario | null, d: Dataset | null, duration: number): Promise<Measured> {
  return askScript<Measured>('bench/drive.ts', {
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
  return askScript<LoadResult>('bench/load.ts', spec);
}

/** The specs of a write load cycling through `cycle` on the dataset's project, at `rate` requests/s when given. */
function loadSpecs(base: string, dataset: Dataset, secret: string, cycle: string[]) {
  return (duration: number, tag: string, rate?: number): LoadSpec => ({
    base,
    appId: dataset.appId,
    secret,
    token: dataset.token,
    customers: Math.min(1000, dataset.customers - 2),
    cycle,
    connections: LOAD_CONNECTIONS,
    duration,
    runTag: `${tag}${Date.now().toString(36)}`,
    ...(rate ? { rate } : {}),
  });
}

/**
 * `--soak MINUTES`: the mixed load's capacity is measured for 10 s at full speed, then the same load
 * runs at half that rate for MINUTES in 30 s slices; each slice reports its throughput, p99 and the
 * server's RSS (at the end of the slice and its peak). Flat RSS is the target.
 */
async function soak(base: string, dataset: Dataset, serverPid: number, peak: { reset(): number }): Promise<Record<string, unknown>> {
  const mixed = LOADS.find((l) => l.name.startsWith('mixed')) as (typeof LOADS)[number];
  const spec = loadSpecs(base, dataset, await appSecret(base, dataset), mixed.cycle(dataset));
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
  const server: ChildProcess = spawnServer(env, { nodeFlags: NODE_FLAGS, stdio: 'inherit' });
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
    const { dataset, figures } = saved ?? (await generate(base, db.env, { preset, noScores: NO_SCORES, serverPid: server.pid ?? 0 }));
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
      const baseline = forkScript('bench/baseline.ts', {
        env: { ...process.env, PORT: String(bport), BYTES: String(Math.round(m.bytes)) },
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
      const secret = await appSecret(base, dataset);
      const target = (t: [number, number]) => t[DB === 'sqlite' ? 0 : 1];
      for (const l of loads) {
        const spec = loadSpecs(base, dataset, secret, l.cycle(dataset));
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
    const rowOptions = { db: DB, quick: QUICK, duration: DURATION };
    if (selected('webhook delivery')) rows.push(...(await webhookDelivery(rowOptions)));
    if (selected('PDF render')) rows.push(await pdfRender(rowOptions));
    if (selected('watermark')) rows.push(...(await watermarkFigures(rowOptions)));
    if (selected('merge')) rows.push(await mergeFigures(rowOptions));
    if (selected('link analytics')) rows.push(await analyticsFigures(rowOptions));
    if (selected('viewer page') || selected('beacons') || selected('collect')) rows.push(...(await viewerFigures(rowOptions)));
    if (selected('room open') || selected('room document')) rows.push(...(await roomFigures(rowOptions)));
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
    if (selected('campaign mail')) rows.push(await mailFigures(rowOptions));
    if (selected('playbook lag')) rows.push(await playbookLag(rowOptions));
    if (selected('sequence steps')) rows.push(await sequenceStepFigures(rowOptions));
    if (selected('sequence enrol 100k')) rows.push(await sequenceEnrolFigures(rowOptions));
    if (selected('import') || selected('export')) rows.push(...(await dataOps(rowOptions)));
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

runMain(main);
