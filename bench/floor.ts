/**
 * Where a customer detail request's time goes, by subtraction (issue 7):
 *   node --import tsx bench/floor.ts [--db sqlite|postgres] [--size quick|small|default] [--duration 5]
 * on a dataset kept by `npm run bench -- [--quick] --keep`. Each probe is driven like a bench scenario
 * (autocannon, 64 connections) and reported with its req/s, its ratio to the bare node:http server of
 * the same run and the server's CPU per request (/proc/<pid>/stat). The probes: the bare server, Fastify
 * alone, the app answering a constant outside /api/ (its own pipeline) and under /api/ (plus the token
 * check), the detail's answer only serialised, k database reads per request (the slope is one read's
 * cost inside a loaded server), and the real customer detail.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import * as esbuild from 'esbuild';
import { option } from './options.ts';
import { SERVER_ENV, keptDataset } from './server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DB = option('db', 'sqlite');
const SIZE = option('size', 'quick');
const DURATION = Number(option('duration', '5'));
const CONNECTIONS = Number(option('connections', '64'));

const saved = keptDataset(DB, SIZE);
const d = saved.dataset;

/** utime + stime of a process, in clock ticks (10 ms). */
function ticks(pid: number): number {
  const fields = (fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The probe server bundled as the server is (scripts/build-server.js), so no TypeScript loader runs in it. */
async function bundle(): Promise<string> {
  const file = path.join(ROOT, '.bench', 'floor-server.mjs');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'bench/floor-server.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: file,
    logLevel: 'silent',
  });
  return file;
}

async function start(script: string, env: Record<string, string>, execArgv: string[]): Promise<ChildProcess> {
  const child = fork(script, [], {
    cwd: ROOT,
    env: { ...process.env, ...SERVER_ENV, ...env },
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface Row {
  probe: string;
  reqPerSec: number;
  ratio?: number;
  cpuMicrosPerRequest: number;
  non2xx: number;
}

async function drive(probe: string, child: ChildProcess, url: string, headers: Record<string, string> = {}): Promise<Row> {
  const opts = { url, connections: CONNECTIONS, headers };
  await autocannon({ ...opts, duration: 2 });
  const t0 = ticks(child.pid as number);
  const r = await autocannon({ ...opts, duration: DURATION });
  const cpu = ((ticks(child.pid as number) - t0) * 10_000) / Math.max(1, r.requests.total);
  return { probe, reqPerSec: Math.round(r.requests.average), cpuMicrosPerRequest: Math.round(cpu), non2xx: r.non2xx };
}

const port = 4300 + Math.floor(Math.random() * 300);
const base = `http://127.0.0.1:${port}`;
const rows: Row[] = [];

const bare = await start(path.join(ROOT, 'bench/baseline.ts'), { PORT: String(port), BYTES: '100' }, ['--import', 'tsx']);
rows.push(await drive('bare node:http (baseline)', bare, `${base}/`));
await stop(bare);

const script = await bundle();
const fastify = await start(script, { PORT: String(port), FLOOR_SERVER: 'fastify' }, []);
rows.push(await drive('Fastify alone, one route with a response schema', fastify, `${base}/api/v1.7/customer/x/detail`));
await stop(fastify);

const app = await start(
  script,
  {
    ...saved.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RAPPORT_EMBEDDED_RELAY: 'false',
    FLOOR_TOKEN: d.token,
  },
  ['--max-old-space-size=256'],
);
const bearer = { authorization: `Bearer ${d.token}` };
rows.push(await drive('app: constant answer, no token (its own pipeline)', app, `${base}/floor/constant`));
rows.push(await drive('app: constant answer under /api/ (token check)', app, `${base}/api/floor/authenticated`, bearer));
rows.push(await drive("app: the detail's answer, only serialised", app, `${base}/floor/serialised/${d.customerId}`));
for (const kind of ['pk', 'detail']) {
  for (const k of [0, 4]) {
    rows.push(
      await drive(
        `app: ${k} × ${kind === 'pk' ? 'one-column primary-key read' : "the detail's statement"}`,
        app,
        `${base}/floor/read/${kind}/${k}/${d.customerId}`,
      ),
    );
  }
}
rows.push(await drive('customer detail (the real route)', app, `${base}/api/v1.7/customer/${d.customerId}/detail`, bearer));
await stop(app);

const bareRate = rows[0]?.reqPerSec ?? 1;
for (const r of rows) r.ratio = Number((r.reqPerSec / bareRate).toFixed(3));
console.log(`\n${DB}, ${SIZE} dataset, ${CONNECTIONS} connections, ${DURATION} s per probe\n`);
console.log('| probe | req/s | ratio to bare | server CPU µs/request | non-2xx |\n| --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.probe} | ${r.reqPerSec} | ${r.ratio} | ${r.cpuMicrosPerRequest} | ${r.non2xx} |`);
const cpuOf = (probe: string) => rows.find((r) => r.probe.startsWith(probe))?.cpuMicrosPerRequest ?? Number.NaN;
for (const kind of ['one-column primary-key read', "the detail's statement"]) {
  console.log(
    `one ${kind} inside the loaded server: ${((cpuOf(`app: 4 × ${kind}`) - cpuOf(`app: 0 × ${kind}`)) / 4).toFixed(1)} µs of CPU`,
  );
}
