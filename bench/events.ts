/**
 * Events-out figures: latency from a customer create (HTTP) to webhook receipt and to the owner's
 * live stream (GET /api/v1.7/app/{app-id}/live, over a real connection), and relay throughput.
 *   node --import tsx bench/events.ts [--db sqlite|postgres] [--events 20000] [--creates 200] [--poll 500]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { writeEvents } from '../src/events/outbox.ts';
import { Relay, relayJob } from '../src/events/relay.ts';
import { BackgroundJobs } from '../src/lib/jobs.ts';
import { createLogger } from '../src/logger.ts';
import { openContext } from '../src/runtime.ts';
import { createServices } from '../src/services.ts';
import { option } from './options.ts';
import { runMain } from './support/report.ts';

const dialect = option('db', 'sqlite');
const EVENTS = Number(option('events', '20000'));
const CREATES = Number(option('creates', '200'));
const POLL = Number(option('poll', '100'));
const ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

async function main() {
  let env: Record<string, string>;
  let drop = async () => {};
  if (dialect === 'postgres') {
    const name = `rapport_bench_${randomBytes(4).toString('hex')}`;
    const c = new pg.Client(ADMIN);
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    env = { DATABASE_URL: ADMIN.replace(/\/postgres$/, `/${name}`) };
    drop = async () => {
      const d = new pg.Client(ADMIN);
      await d.connect();
      await d.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await d.end();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-bench-'));
    env = { DATA_DIR: dir };
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  const config = loadConfig({
    ...env,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RAPPORT_INSECURE_FAST_HASH: '1',
    RATE_LIMITS: 'off',
  });
  const ctx = await openContext(config, createLogger('warn'));
  /** A relay of the bench's own, run as the servers run it: its background job. */
  const runRelay = (options: { pollMs: number }) => {
    const jobs = new BackgroundJobs(ctx.clock, {
      ticked: () => {},
      failed: (job, err) => ctx.logger.warn({ err, job }, 'relay pass failed'),
    });
    jobs.define(relayJob(new Relay(ctx, options)));
    jobs.start();
    return jobs;
  };
  const services = createServices(ctx);
  const app = await buildApp(ctx, services);

  // Receiver: records arrival time per event id.
  const arrived = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const now = performance.now();
      for (const e of JSON.parse(body) as { id: string }[]) if (!arrived.has(e.id)) arrived.set(e.id, now);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as { port: number }).port;

  const client = await services.clients.create('bench');
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
  await app.inject({ method: 'POST', url: '/svcuser/oauth2/register', headers: form, payload: 'phoneNum=13800000001&password=benchmark1' });
  const login = await app.inject({
    method: 'POST',
    url: '/svcuser/oauth2/access_token',
    headers: form,
    payload: 'grant_type=password&username=13800000001&password=benchmark1',
  });
  const token = (login.json() as { access_token: string }).access_token;
  const auth = { authorization: `Bearer ${token}` };
  const me = (await app.inject({ method: 'GET', url: '/svcuser/oauth2/getUserInfoByAccessToken', headers: auth })).json() as { id: number };
  const appId = (await app.inject({ method: 'POST', url: '/api/v1.7/apps', headers: auth, payload: { name: 'bench' } })).json().data
    .appId as string;
  await app.inject({
    method: 'POST',
    url: `/api/v1.7/app/${appId}/webhooks`,
    headers: auth,
    payload: { url: `http://127.0.0.1:${port}/hook` },
  });

  // The owner's live stream, read over a real connection as the console reads it.
  await app.listen({ port: 0, host: '127.0.0.1' });
  const apiPort = (app.server.address() as { port: number }).port;
  const streamed = new Map<string, number>();
  const live = new AbortController();
  const stream = await fetch(`http://127.0.0.1:${apiPort}/api/v1.7/app/${appId}/live`, { headers: auth, signal: live.signal });
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
        const now = performance.now();
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, cut)
            .split('\n')
            .find((l) => l.startsWith('data: '));
          buffer = buffer.slice(cut + 2);
          if (data !== undefined) streamed.set((JSON.parse(data.slice(6)) as { id: string }).id, now);
        }
      }
    } catch {
      // aborted at the end
    }
  })();

  // 1. Latency: customer create → webhook receipt and → live stream, relay polling every POLL ms.
  const relay = runRelay({ pollMs: POLL });
  const latencies: number[] = [];
  const liveLatencies: number[] = [];
  for (let i = 0; i < CREATES; i++) {
    const t0 = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1.7/app/${appId}/member/${me.id}/customers`,
      headers: auth,
      payload: { name: `c${i}` },
    });
    const id = res.json().data.id as string;
    const eventId = (await ctx.database.db.selectFrom('outbox').select('id').where('domain_id', '=', id).executeTakeFirstOrThrow()).id;
    while (!arrived.has(eventId) || !streamed.has(eventId)) await new Promise((r) => setTimeout(r, 2));
    latencies.push((arrived.get(eventId) ?? 0) - t0);
    liveLatencies.push((streamed.get(eventId) ?? 0) - t0);
    await new Promise((r) => setTimeout(r, Math.random() * 20));
  }
  await relay.stop();
  live.abort();

  // 2. Throughput: EVENTS events already committed, one relay drains them.
  arrived.clear();
  const ids: string[] = [];
  for (let i = 0; i < EVENTS; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, EVENTS - i) }, (_, j) => ({
      event_type: 'create' as const,
      domainType: 'Customer',
      domainId: `t${i + j}`,
      body: { n: i + j },
    }));
    ids.push(...(await ctx.database.db.transaction().execute((trx) => writeEvents(trx, appId, batch, Date.now()))));
  }
  const t0 = performance.now();
  const drain = runRelay({ pollMs: 10 });
  while (!ids.every((id) => arrived.has(id))) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - t0) / 1000;
  await drain.stop();

  const summary = {
    database: dialect,
    pollMs: POLL,
    createToReceipt: { samples: latencies.length, p50ms: Math.round(pct(latencies, 50)), p99ms: Math.round(pct(latencies, 99)) },
    createToLiveStream: {
      samples: liveLatencies.length,
      livePollMs: config.livePollMs,
      p50ms: Math.round(pct(liveLatencies, 50)),
      p95ms: Math.round(pct(liveLatencies, 95)),
      p99ms: Math.round(pct(liveLatencies, 99)),
    },
    relayThroughput: { events: EVENTS, seconds: Number(seconds.toFixed(2)), eventsPerSecond: Math.round(EVENTS / seconds) },
  };
  console.log(JSON.stringify(summary, null, 2));
  await app.close();
  receiver.close();
  await ctx.database.close();
  await drop();
}

runMain(main);
