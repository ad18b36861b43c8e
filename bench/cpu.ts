/**
 * CPU per request, split between the server process and PostgreSQL, on a dataset kept by
 * `npm run bench -- --keep` (a figure that drifts much less than req/s on a shared machine):
 *
 *   node --import tsx bench/cpu.ts [--db sqlite|postgres] [--size default|quick] [--only "detail,list"] [--requests 10000]
 *   node --import tsx bench/cpu.ts --db postgres --ingest 2 [--batches 60]
 *   node --import tsx bench/cpu.ts --size quick --only overview --profile .bench/prof   # and a CPU profile of the server
 *
 * Reads: each scenario of bench/scenarios.ts gets 2,000 warm-up requests, then `--requests` more at 32
 * connections; the server's and every PostgreSQL process's utime+stime (/proc) before and after give
 * the CPU per request. `--ingest C`: batches of 1000 behaviour records spread over the 1,000 spread
 * customers, C in flight (these records stay in the kept dataset), with CPU per batch and, on
 * PostgreSQL, the WAL written per batch.
 */
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { option } from './options.ts';
import { SCENARIOS } from './scenarios.ts';
import { keptDataset, startServer } from './server.ts';

const DB = option('db', 'sqlite');
const REQUESTS = Number(option('requests', '10000'));
const ONLY = option('only', '').split(',').filter(Boolean);
const INGEST = Number(option('ingest', '0'));
const BATCHES = Number(option('batches', '60'));
const SIZE = option('size', 'default');
// --profile DIR: the server runs with --cpu-prof and writes its profile into DIR when it stops.
const PROFILE = option('profile', '');

const saved = keptDataset(DB, SIZE);

/** utime + stime of a process, in clock ticks (10 ms). */
function ticks(pid: number): number {
  try {
    const fields = (fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
function postgresTicks(): number {
  if (DB !== 'postgres') return 0;
  let t = 0;
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (fs.readFileSync(`/proc/${p}/stat`, 'utf8').includes('(postgres)')) t += ticks(Number(p));
    } catch {
      // the process ended meanwhile
    }
  }
  return t;
}

const { server, base } = await startServer(saved.env, PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE)}`] : []);
const serverPid = server.pid as number;
const d = saved.dataset;

if (INGEST > 0) {
  const tag = `cpu${Date.now().toString(36)}`;
  const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  const now = Date.now();
  // The same records as the bench's spread phase (bench/run.ts), under ids of their own.
  const record = (i: number) => {
    const customerId = `c${2 + (i % Math.min(1000, d.customers - 2))}`;
    const body: Record<string, unknown> = { customerId, when: fmt(now - (i % 200) * 86_400_000 - (i % 86_400) * 1000) };
    const kind = i % 3;
    if (kind === 0) body.action = 'send_message';
    else if (kind === 1) Object.assign(body, { action: 'visit_record', content: JSON.stringify({ customer_id: customerId }) });
    else
      Object.assign(body, {
        action: 'access_site',
        content: JSON.stringify({ web_access_log_id: `w${i}`, title: `Page ${i % 13}`, site: 'example.com' }),
      });
    return { event_type: 'create', domainType: 'BehaviourLog', domainId: `${tag}-${i}`, body };
  };
  const payloads = Array.from({ length: BATCHES }, (_, b) => JSON.stringify(Array.from({ length: 1000 }, (_, j) => record(b * 1000 + j))));
  const admin = DB === 'postgres' ? new pg.Client(saved.env.DATABASE_URL) : null;
  await admin?.connect();
  const walBytes = async () => (admin ? Number((await admin.query("select pg_current_wal_lsn() - '0/0' as b")).rows[0].b) : 0);
  const w0 = await walBytes();
  const s0 = ticks(serverPid);
  const p0 = postgresTicks();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: INGEST }, async () => {
      while (next < payloads.length) {
        const payload = payloads[next++] as string;
        const res = await fetch(`${base}/api/v1.7/app/${d.appId}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${d.token}` },
          body: payload,
        });
        const body = (await res.json()) as { status: number };
        if (body.status !== 1) throw new Error(`batch refused: ${JSON.stringify(body).slice(0, 300)}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const client = process.cpuUsage(c0);
  const wal = DB === 'postgres' ? `, WAL ${(((await walBytes()) - w0) / BATCHES / 1e6).toFixed(2)} MB` : '';
  console.log(
    `ingestion, ${INGEST} in flight: ${Math.round((BATCHES * 1000) / seconds)} records/s; CPU per batch: server ${(((ticks(serverPid) - s0) * 10) / BATCHES).toFixed(1)} ms, PostgreSQL ${(((postgresTicks() - p0) * 10) / BATCHES).toFixed(1)} ms, load generator ${((client.user + client.system) / 1000 / BATCHES).toFixed(1)} ms${wal}`,
  );
  await admin?.end();
} else {
  for (const s of SCENARIOS) {
    if (s.reportOnly || (ONLY.length > 0 && !ONLY.some((o) => s.name.includes(o)))) continue;
    const options = {
      url: base + s.path(d),
      method: s.method,
      headers: s.headers(d),
      connections: 32,
      ...(s.body ? { body: s.body(d) } : {}),
    };
    await autocannon({ ...options, amount: 2000 });
    const s0 = ticks(serverPid);
    const p0 = postgresTicks();
    const r = await autocannon({ ...options, amount: REQUESTS });
    const server = Math.round(((ticks(serverPid) - s0) * 10_000) / REQUESTS);
    const postgres = DB === 'postgres' ? `, PostgreSQL ${Math.round(((postgresTicks() - p0) * 10_000) / REQUESTS)} µs` : '';
    console.log(`${s.name}: server ${server} µs${postgres} per request (non-2xx ${r.non2xx})`);
  }
}
server.kill('SIGTERM');
