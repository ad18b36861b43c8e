/**
 * Ingestion and overview benchmark (issue 5). Not a test: prints figures.
 *
 *   node --import tsx bench/ingest.ts                 # SQLite (a fresh file under .bench/)
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/ingest.ts
 *   BENCH_BATCHES=30 BENCH_OVERVIEW=0 node --import tsx bench/ingest.ts   # ingestion only
 *
 * 1. Ingestion: batches of 1000 BehaviourLog events spread over 1,000 customers, posted through
 *    the HTTP app (Fastify inject: JSON parsing, validation, one transaction per batch with outbox
 *    events and rollups). Reports records/s.
 * 2. Overview: median latency for a customer with 1,000 records and one with 100,000 records,
 *    both spread over the same 365 days (the rollups grow with days, not records).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openContext } from '../src/runtime.ts';
import { createServices } from '../src/services.ts';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 50);
const CUSTOMERS = 1000;
const DAY = 86_400_000;
const pgAdmin = process.env.BENCH_PG_URL;

let env: Record<string, string>;
let dropDatabase = async () => {};
if (pgAdmin) {
  const name = `rapport_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgAdmin });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(pgAdmin);
  url.pathname = `/${name}`;
  env = { DATABASE_URL: url.toString() };
  dropDatabase = async () => {
    const c = new pg.Client({ connectionString: pgAdmin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
} else {
  const dir = path.resolve('.bench', `ingest-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  env = { DATA_DIR: dir };
  dropDatabase = async () => fs.rmSync(dir, { recursive: true, force: true });
}

const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
const ctx = await openContext(config, createLogger('silent'));
const services = createServices(ctx);
const app = await buildApp(ctx, services);
await app.ready();
const db = ctx.database.db;
const now = Date.now();

// A user, a project and 1,000 customers, written directly: the set-up is not what is measured.
const user = await db
  .insertInto('users')
  .values({ password_hash: 'x', email_status: 0, phone_num_status: 0, cc_num: 12345678, status: 1, created_at: now, updated_at: now })
  .returning('id')
  .executeTakeFirstOrThrow();
const project = await services.projects.create(user.id, { name: 'bench' });
const appId = project.appId;
const secret = (await db.selectFrom('apps').select('secret').where('id', '=', appId).executeTakeFirstOrThrow()).secret;
const customerIds = Array.from({ length: CUSTOMERS }, (_, i) => `cust-${i}`);
for (let i = 0; i < CUSTOMERS; i += 500) {
  await db
    .insertInto('customers')
    .values(
      customerIds
        .slice(i, i + 500)
        .map((id) => ({ id, app_id: appId, owner_id: user.id, name: id, status: 1, is_new: 0, created_at: now, updated_at: now })),
    )
    .execute();
}
await post([
  {
    event_type: 'create',
    domainType: 'Link',
    domainId: 'bench-link',
    body: { name: 'Deck', type: 1, creatorId: user.id, tags: ['a', 'b'] },
  },
]);

async function post(batch: unknown[]): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1.7/app/${appId}/events`,
    headers: { 'content-type': 'application/json', 'x-app-secret': secret },
    payload: JSON.stringify(batch),
  });
  const body = res.json() as { status: number };
  if (body.status !== 1) throw new Error(`batch refused: ${res.body.slice(0, 500)}`);
}

const ACTIONS = [
  { action: 'access_site', content: (i: number) => ({ web_access_log_id: `w${i}`, title: `Page ${i % 7}`, site: 'example.com' }) },
  { action: 'web_page_view', content: (i: number) => ({ web_access_log_id: `w${i}`, title: `Page ${i % 7}`, url: '/x' }) },
  { action: 'send_message', content: () => ({}) },
  { action: 'link_view_log', content: (i: number) => ({ linkId: 'bench-link', linkViewLogId: `lv${i}` }) },
  { action: 'view_app_page', content: (i: number) => ({ title: `Screen ${i % 5}` }) },
];

let seq = 0;
function behaviourBatch(customerOf: (i: number) => string, whenOf: (i: number) => number, size = 1000): string {
  const items = [];
  for (let i = 0; i < size; i += 1) {
    seq += 1;
    const a = ACTIONS[seq % ACTIONS.length] as (typeof ACTIONS)[number];
    items.push({
      event_type: 'create',
      domainType: 'BehaviourLog',
      domainId: `b-${seq}`,
      body: {
        customerId: customerOf(i),
        action: a.action,
        when: ctx.clock.format(whenOf(i)),
        content: JSON.stringify(a.content(seq)),
        customerName: 'Visitor',
        ip: '203.0.113.9',
      },
    });
  }
  return JSON.stringify(items);
}

async function postRaw(payload: string): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1.7/app/${appId}/events`,
    headers: { 'content-type': 'application/json', 'x-app-secret': secret },
    payload,
  });
  if ((res.json() as { status: number }).status !== 1) throw new Error(`batch refused: ${res.body.slice(0, 500)}`);
}

// 1. Ingestion throughput. Payloads are built first so only the server's work is timed.
const payloads = Array.from({ length: BATCHES }, () =>
  behaviourBatch(
    (i) => customerIds[i % CUSTOMERS] as string,
    (i) => now - (i % 30) * DAY,
  ),
);
await postRaw(
  behaviourBatch(
    (i) => customerIds[i % CUSTOMERS] as string,
    () => now,
  ),
); // warm-up
const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
for (const p of payloads) await postRaw(p);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
const records = BATCHES * 1000;
// On a shared machine the wall time includes waiting for the CPU; this process's CPU time per
// batch (SQLite runs inside it; PostgreSQL's own work is not counted) varies much less.
console.log(
  `[${ctx.database.features.name}] ingestion: ${records} behaviour records in ${seconds.toFixed(2)} s = ${Math.round(records / seconds)} records/s (batches of 1000 over ${CUSTOMERS} customers); process CPU ${((cpu.user + cpu.system) / 1000 / BATCHES).toFixed(1)} ms per batch`,
);

// Customer items (each validated against the project's metadata, with its create record and two
// events): BENCH_CUSTOMER_BATCHES batches of 1000 (default 5).
const CUSTOMER_BATCHES = Number(process.env.BENCH_CUSTOMER_BATCHES ?? 5);
const customerPayloads = Array.from({ length: CUSTOMER_BATCHES }, (_, b) =>
  JSON.stringify(
    Array.from({ length: 1000 }, (_, i) => ({
      event_type: 'create',
      domainType: 'Customer',
      domainId: `ingested-${b}-${i}`,
      body: { name: `Customer ${b}-${i}`, phone: `138${String(b * 1000 + i).padStart(8, '0')}`, company: 'Example' },
    })),
  ),
);
const c0 = process.hrtime.bigint();
for (const p of customerPayloads) await postRaw(p);
const customerSeconds = Number(process.hrtime.bigint() - c0) / 1e9;
console.log(
  `[${ctx.database.features.name}] customers: ${CUSTOMER_BATCHES * 1000} in ${customerSeconds.toFixed(2)} s = ${Math.round((CUSTOMER_BATCHES * 1000) / customerSeconds)} customers/s (batches of 1000)`,
);

// What one batch writes: on SQLite the WAL grows by every page the commit dirtied.
if (!pgAdmin) {
  const wal = path.join(env.DATA_DIR as string, 'rapport.sqlite-wal');
  await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  await postRaw(
    behaviourBatch(
      (i) => customerIds[i % CUSTOMERS] as string,
      (i) => now - (i % 30) * DAY,
    ),
  );
  const bytes = fs.statSync(wal).size;
  console.log(`[sqlite] one batch of 1000 wrote ${(bytes / 1e6).toFixed(1)} MB of WAL (${Math.round(bytes / 4096)} pages)`);
}

// 2. Overview latency: 1,000 vs 100,000 records, both over the same 365 days (BENCH_OVERVIEW=0 skips it).
if (process.env.BENCH_OVERVIEW === '0') {
  await app.close();
  await ctx.database.close();
  await dropDatabase();
  process.exit(0);
}
for (const [id, count] of [
  ['small', 1000],
  ['large', 100_000],
] as const) {
  await db
    .insertInto('customers')
    .values({ id, app_id: appId, owner_id: user.id, name: id, status: 1, is_new: 0, created_at: now, updated_at: now })
    .execute();
  for (let done = 0; done < count; done += 1000) {
    await postRaw(
      behaviourBatch(
        () => id,
        (i) => now - ((done + i) % 365) * DAY - i,
        Math.min(1000, count - done),
      ),
    );
  }
}
// Calls alternate between the two customers (and the four windows) so drift hits both alike.
const samples: Record<'small' | 'large', number[]> = { small: [], large: [] };
for (let i = 0; i < 1200; i += 1) {
  const id = i % 2 === 0 ? 'small' : 'large';
  const s = process.hrtime.bigint();
  await services.behaviour.overview(id, user.id, (Math.floor(i / 2) % 4) + 1);
  if (i >= 200) samples[id].push(Number(process.hrtime.bigint() - s) / 1e6);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const small = median(samples.small);
const large = median(samples.large);
console.log(
  `[${ctx.database.features.name}] overview median of 500 calls each (interleaved, windows 1-4): 1,000 records ${small.toFixed(3)} ms, 100,000 records ${large.toFixed(3)} ms (${(((large - small) / small) * 100).toFixed(1)}%)`,
);

await app.close();
await ctx.database.close();
await dropDatabase();
