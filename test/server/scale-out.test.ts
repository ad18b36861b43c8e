// lanes: sqlite postgres
import { randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from '../helpers/database.ts';
import {
  type ProvisionedProject,
  type Spawned,
  behaviourRecords,
  freePort,
  provisionProject,
  runCli,
  useProcessDatabase,
  waitForOk,
} from '../helpers/process.ts';
import { parseSamples, sampleValue } from '../helpers/prometheus.ts';
import { startReceiver } from '../helpers/receiver.ts';

/**
 * Several servers on one PostgreSQL (docs/scaling.md): two `rapport serve` processes sharing no
 * memory, a `rapport relay` apart, NATS JetStream and Redis. Writes go to both servers, one is
 * killed with SIGKILL under load, and every acknowledged write must be readable and every event
 * delivered to the webhook and to NATS, once after deduplication by event id.
 */
const NATS_URL = process.env.RAPPORT_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.RAPPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = randomBytes(4).toString('hex');
const STREAM = `RAPPORT_SCALE_${run}`;
const PREFIX = `rapportscale${run}`;
const REDIS_PREFIX = `rapport-scale-${run}`;
const METRICS_TOKEN = `scale-out-metrics-${run}-0123456789`;
/** Requests a minute per user: small enough to spend in the test, large enough for the load user's reads. */
const TOKEN_LIMIT = 120;
/** Base customers the behaviour records of the load are written for. */
const BASE_CUSTOMERS = 4;
/** Acknowledged batches before the kill, and acknowledged by the surviving server after it. */
const BEFORE_KILL = 150;
const AFTER_KILL = 100;
const WRITERS = 8;
/** Every wait of the test ends by this long; nothing is timed. */
const DEADLINE_MS = 60_000;

type Server = 'A' | 'B';
interface Attempt {
  server: Server;
  /** `Customer:<id>` or `BehaviourLog:<id>` of every record of the batch. */
  records: string[];
  /** The killed server had exited before this attempt was sent. */
  afterKill: boolean;
  acknowledged: boolean;
  /** The answer, when there was one. */
  status?: number;
  body?: unknown;
  /** The network error, when there was no answer. */
  error?: unknown;
}

/**
 * How a write to a killed server fails: refused (nothing listens), or the connection dropped with
 * the request on it (reset, or closed by the other side as undici reports it).
 */
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `code` of a fetch network error's cause (undici wraps it in a TypeError). */
function networkCode(err: unknown): string | undefined {
  if (!(err instanceof TypeError)) return undefined;
  let cause: unknown = err.cause;
  while (cause instanceof Error && !('code' in cause) && cause.cause !== undefined) cause = cause.cause;
  return cause instanceof Error && 'code' in cause ? String((cause as { code: unknown }).code) : undefined;
}

describe.runIf(TEST_DIALECT === 'postgres')(
  'scale-out (PostgreSQL only, RAPPORT_TEST_DB=postgres: several servers share one database): two servers, a relay apart, NATS and Redis',
  () => {
    const processes = useProcessDatabase();
    const cleanups: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
    });

    it(
      'spreads writes over both servers, survives SIGKILL of one, delivers each event once after dedup, and shares rate limits',
      { timeout: 180_000 },
      async () => {
        const started = performance.now();
        const receiver = await startReceiver();
        cleanups.push(() => receiver.close());
        cleanups.push(async () => {
          const nc = await connect({ servers: NATS_URL });
          try {
            await (await jetstreamManager(nc)).streams.delete(STREAM);
          } finally {
            await nc.close();
          }
        });
        const redis = new Redis(REDIS_URL, { lazyConnect: true });
        await redis.connect();
        cleanups.push(async () => {
          const keys = await redis.keys(`${REDIS_PREFIX}:*`);
          if (keys.length > 0) await redis.del(...keys);
          await redis.quit();
        });

        // One environment for every process, as one deployment's settings file.
        const env = {
          ...processes.db.env,
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          RAPPORT_EMBEDDED_RELAY: 'false',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          NATS_URL,
          NATS_STREAM: STREAM,
          NATS_SUBJECT_PREFIX: PREFIX,
          RATE_LIMITS: 'on',
          RATE_LIMIT_TOKEN: String(TOKEN_LIMIT),
          RATE_LIMIT_PROJECT: '1000000',
          REDIS_URL,
          RATE_LIMIT_REDIS_PREFIX: REDIS_PREFIX,
          // About correctness, not load: a busy machine must not get these requests refused as overloaded.
          MAX_EVENT_LOOP_DELAY: '0',
        };
        // The schema once, before the processes start.
        expect(await runCli(['migrate'], env).exited).toBe(0);
        const [portA, portB, relayMetricsPort] = [await freePort(), await freePort(), await freePort()];
        const base: Record<Server, string> = { A: `http://127.0.0.1:${portA}`, B: `http://127.0.0.1:${portB}` };
        const serverA = processes.started(runCli(['serve'], { ...env, PORT: String(portA) }));
        const serverB = processes.started(runCli(['serve'], { ...env, PORT: String(portB) }));
        const relay = processes.started(runCli(['relay'], { ...env, METRICS_TOKEN, METRICS_PORT: String(relayMetricsPort) }));
        const scrapeRelay = () =>
          fetch(`http://127.0.0.1:${relayMetricsPort}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
        await Promise.all([waitForOk(`${base.A}/healthz`), waitForOk(`${base.B}/healthz`), waitUntilOk(scrapeRelay, relay)]);
        const relayMetrics = async () => {
          const res = await scrapeRelay();
          expect(res.status).toBe(200);
          return parseSamples(await res.text());
        };
        const delivered = (samples: ReturnType<typeof parseSamples>, result: string) =>
          sampleValue(samples, 'rapport_webhook_deliveries_total', { result });
        expect(delivered(await relayMetrics(), 'delivered')).toBe(0);
        // The relay's metrics port answers only with the token.
        expect((await fetch(`http://127.0.0.1:${relayMetricsPort}/metrics`)).status).toBe(403);

        // The load's project, provisioned through A; the rate-limit user's through B.
        const project = await provisionProject(base.A, env, '13966660001');
        const limited = await provisionProject(base.B, env, '13966660002');
        const hook = await fetch(`${base.A}/api/v1.7/app/${project.appId}/webhooks`, {
          method: 'POST',
          headers: { ...project.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ url: receiver.url }),
        });
        expect(await hook.json()).toMatchObject({ status: 1, data: { url: receiver.url } });

        // --- Rate limits: one user's budget is counted in Redis, across both servers. ---
        await countingStarted(base.A);
        await countingStarted(base.B);
        const myApps = (server: Server, p: ProvisionedProject) => fetch(`${base[server]}/api/v1.7/my-apps`, { headers: p.auth });
        const spent: { server: Server; remaining: number }[] = [];
        for (let remaining = Infinity; remaining > 0;) {
          // The first half on A, the rest on B.
          const server: Server = spent.length > 0 && remaining <= TOKEN_LIMIT / 2 ? 'B' : 'A';
          const res = await myApps(server, limited);
          expect(res.status).toBe(200);
          expect(res.headers.get('ratelimit-limit')).toBe(String(TOKEN_LIMIT));
          remaining = Number(res.headers.get('ratelimit-remaining'));
          spent.push({ server, remaining });
          await res.arrayBuffer();
        }
        // Each answer, from either server, has one request fewer left than the one before.
        for (let i = 1; i < spent.length; i += 1) expect(spent[i]?.remaining).toBe((spent[i - 1]?.remaining ?? 0) - 1);
        expect(new Set(spent.map((s) => s.server))).toEqual(new Set(['A', 'B']));
        const firstOnB = spent.findIndex((s) => s.server === 'B');
        expect(firstOnB).toBeGreaterThan(0);
        for (const server of ['A', 'B'] as const) {
          const refused = await myApps(server, limited);
          expect(refused.status).toBe(429);
          expect(await refused.json()).toEqual({ status: 0, code: 'rate_limited', msg: expect.stringContaining('this account') });
          expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        }
        // Another user keeps a budget of their own.
        const other = await myApps('A', project);
        expect(other.status).toBe(200);
        expect(Number(other.headers.get('ratelimit-remaining'))).toBeGreaterThan(TOKEN_LIMIT / 2);
        await other.arrayBuffer();

        // --- The load. ---
        const attempts: Attempt[] = [];
        const ingest = async (server: Server, batch: { domainType: string; domainId: string }[], afterKill: boolean) => {
          const records = batch.map((r) => `${r.domainType}:${r.domainId}`);
          try {
            const res = await fetch(`${base[server]}/api/v1.7/app/${project.appId}/events`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-app-secret': project.secret },
              body: JSON.stringify(batch.map((r) => ({ event_type: 'create', ...r }))),
            });
            const body = (await res.json()) as { status?: number; data?: { accepted: number; duplicates: number } };
            const acknowledged = res.ok && body.status === 1 && body.data?.accepted === batch.length;
            attempts.push({ server, records, afterKill, acknowledged, status: res.status, body });
          } catch (error) {
            attempts.push({ server, records, afterKill, acknowledged: false, error });
          }
        };
        const customers = Array.from({ length: BASE_CUSTOMERS }, (_, i) => ({
          domainType: 'Customer',
          domainId: `base-${i}`,
          body: { name: `Base ${i}` },
        }));
        await ingest('A', customers, false);
        expect(attempts[0]?.acknowledged, JSON.stringify(attempts[0]?.body)).toBe(true);

        let next = 0;
        let aExited = false;
        let stop = false;
        const acknowledged = (server: Server, afterKill?: boolean) =>
          attempts.filter((a) => a.acknowledged && a.server === server && (afterKill === undefined || a.afterKill === afterKill)).length;
        const writer = async () => {
          while (!stop) {
            const n = next++;
            const server: Server = n % 2 === 0 ? 'A' : 'B';
            // Every fifth batch creates a customer (its own transaction); the others are four
            // behaviour records (written by group commits).
            const batch =
              n % 5 === 4
                ? [{ domainType: 'Customer', domainId: `cust-${n}`, body: { name: `Customer ${n}` } }]
                : Array.from({ length: 4 }, (_, j) => ({
                    domainType: 'BehaviourLog',
                    domainId: `b-${n}-${j}`,
                    body: { customerId: `base-${(n + j) % BASE_CUSTOMERS}`, action: 'send_message', when: '2026-11-01 10:00:00' },
                  }));
            await ingest(server, batch, aExited);
          }
        };
        const writing = Array.from({ length: WRITERS }, () => writer());
        const until = async (what: string, check: () => boolean) => {
          const end = Date.now() + DEADLINE_MS;
          while (!check()) {
            if (Date.now() > end) throw new Error(`not reached in time: ${what}`);
            await sleep(10);
          }
        };
        try {
          await until('writes acknowledged before the kill', () => attempts.filter((a) => a.acknowledged).length >= BEFORE_KILL);
          serverA.child.kill('SIGKILL');
          await serverA.exited;
          aExited = true;
          await until('writes acknowledged by B after the kill', () => acknowledged('B', true) >= AFTER_KILL);
        } finally {
          stop = true;
          await Promise.all(writing);
        }

        // Every write to B was acknowledged; A acknowledged writes until it died and then refused
        // connections: no answer from it was anything but a success.
        const toB = attempts.filter((a) => a.server === 'B');
        expect(toB.filter((a) => !a.acknowledged).map((a) => a.error ?? a.body)).toEqual([]);
        const toA = attempts.filter((a) => a.server === 'A');
        const failedOnA = toA.filter((a) => !a.acknowledged);
        const notConnectionErrors = failedOnA.filter((a) => !CONNECTION_ERRORS.has(networkCode(a.error) ?? ''));
        expect(notConnectionErrors.map((a) => (a.error === undefined ? JSON.stringify(a.body) : String(a.error)))).toEqual([]);
        // Once A had exited, its port refused every connection.
        const refusedAfterKill = toA.filter((a) => a.afterKill);
        expect(refusedAfterKill.length).toBeGreaterThan(0);
        expect(refusedAfterKill.every((a) => !a.acknowledged)).toBe(true);
        expect(refusedAfterKill.map((a) => networkCode(a.error))).toContain('ECONNREFUSED');
        expect(acknowledged('A', false)).toBeGreaterThan(1);
        expect(acknowledged('B', false)).toBeGreaterThan(0);
        const acknowledgedRecords = new Set(attempts.filter((a) => a.acknowledged).flatMap((a) => a.records));

        // --- Every event reaches the webhook and NATS. ---
        // The set expected: the project's events as written (the outbox, which the feed is read
        // from), once every write has ended; the sinks are waited for until they hold as many.
        const pgc = new pg.Client({ connectionString: processes.db.env.DATABASE_URL });
        await pgc.connect();
        let written: number;
        try {
          written = Number(
            (await pgc.query<{ n: string }>('select count(*) as n from outbox where app_id = $1', [project.appId])).rows[0]?.n,
          );
        } finally {
          await pgc.end();
        }
        const nc = await connect({ servers: NATS_URL });
        let natsMessages: { id: string | undefined; subject: string; event: { id: string; domainType: string; domainId: string } }[];
        try {
          const jsm = await jetstreamManager(nc);
          const streamed = async () => (await jsm.streams.info(STREAM).catch(() => null))?.state.messages ?? 0;
          const end = Date.now() + DEADLINE_MS;
          while (new Set(receiver.eventIds()).size < written || (await streamed()) < written) {
            if (Date.now() > end) {
              throw new Error(`sinks behind: ${new Set(receiver.eventIds()).size} webhook, ${await streamed()} NATS of ${written}`);
            }
            await sleep(100);
          }
          const count = await streamed();
          const consumer = await jetstream(nc).consumers.get(STREAM);
          natsMessages = [];
          for await (const m of await consumer.fetch({ max_messages: count, expires: 10_000 })) {
            natsMessages.push({ id: m.headers?.get('Nats-Msg-Id'), subject: m.subject, event: m.json() });
            if (natsMessages.length === count) break;
          }
          expect(natsMessages).toHaveLength(count);
        } finally {
          await nc.close();
        }

        // The feed, through the surviving server, as a consumer reads it.
        const feed = new Map<string, { domainType: string; domainId: string }>();
        for (let after = ''; ;) {
          const res = await fetch(
            `${base.B}/api/v1.7/app/${project.appId}/events?count=100${after ? `&after=${encodeURIComponent(after)}` : ''}`,
            {
              headers: project.auth,
            },
          );
          const page = (await res.json()) as {
            status: number;
            data: { events: { id: string; domainType: string; domainId: string }[]; next: string; hasMore: boolean };
          };
          expect(page.status).toBe(1);
          for (const e of page.data.events) feed.set(e.id, e);
          if (!page.data.hasMore) break;
          after = page.data.next;
        }
        expect(feed.size).toBe(written);
        const expected = new Set(feed.keys());
        // Every acknowledged record has its event.
        const announced = new Set([...feed.values()].map((e) => `${e.domainType}:${e.domainId}`));
        expect([...acknowledgedRecords].filter((r) => !announced.has(r))).toEqual([]);

        const webhookIds = receiver.eventIds();
        expect(new Set(webhookIds)).toEqual(expected);
        const natsIds = natsMessages.map((m) => m.id);
        expect(new Set(natsIds)).toEqual(expected);
        for (const m of natsMessages) {
          expect(m.event.id).toBe(m.id);
          expect(m.subject).toBe(`${PREFIX}.${project.appId}.${m.event.domainType}`);
        }
        // Delivered twice is allowed (at-least-once); the counts say how often it happened.
        const duplicates = { webhook: webhookIds.length - expected.size, nats: natsIds.length - expected.size };

        // The relay's metrics count what the receiver got: one delivery per request, none failed.
        const afterLoad = await relayMetrics();
        expect(delivered(afterLoad, 'delivered')).toBe(receiver.requests());
        expect(delivered(afterLoad, 'failed')).toBe(0);
        expect(sampleValue(afterLoad, 'rapport_outbox_pending_events')).toBe(0);

        // --- Every acknowledged write is readable through the surviving server. ---
        const listed = new Set<string>();
        for (let start = 0; ; start += 100) {
          const res = await fetch(`${base.B}/api/v1.7/app/${project.appId}/member/all/customers?count=100&start_index=${start}`, {
            headers: project.auth,
          });
          const page = (await res.json()) as { status: number; data: { id: string }[] };
          expect(page.status).toBe(1);
          for (const c of page.data) listed.add(`Customer:${c.id}`);
          if (page.data.length < 100) break;
        }
        for (let i = 0; i < BASE_CUSTOMERS; i += 1) {
          for (const id of (await behaviourRecords(base.B, project, `base-${i}`)).keys()) listed.add(`BehaviourLog:${id}`);
        }
        expect([...acknowledgedRecords].filter((r) => !listed.has(r))).toEqual([]);

        // The survivors stop cleanly: the server drains, the relay ends its pass and closes its metrics port.
        serverB.child.kill('SIGTERM');
        relay.child.kill('SIGTERM');
        expect(await serverB.exited).toBe(0);
        expect(await relay.exited).toBe(0);

        const figures = {
          acknowledgedBatches: { A: acknowledged('A'), B: acknowledged('B'), BAfterKill: acknowledged('B', true) },
          acknowledgedRecords: acknowledgedRecords.size,
          connectionErrorsOnA: failedOnA.reduce<Record<string, number>>((counts, a) => {
            const code = networkCode(a.error) ?? '?';
            counts[code] = (counts[code] ?? 0) + 1;
            return counts;
          }, {}),
          events: expected.size,
          webhook: { events: webhookIds.length, requests: receiver.requests() },
          nats: natsIds.length,
          duplicates,
          rateLimit: { spentOnA: firstOnB, spentOnB: spent.length - firstOnB },
          seconds: Math.round((performance.now() - started) / 100) / 10,
        };
        console.log(`scale-out figures: ${JSON.stringify(figures)}`);
      },
    );
  },
);

/** Polls `probe` until it answers 200, or fails with the process's output once it has exited or the deadline passed. */
async function waitUntilOk(probe: () => Promise<Response>, proc: Spawned): Promise<void> {
  let exited = false;
  void proc.exited.then(() => (exited = true));
  // As long as the servers beside it are given (waitForOk): three processes start at once on a loaded machine.
  const end = Date.now() + 60_000;
  for (;;) {
    const res = await probe().catch(() => null);
    if (res?.ok) return;
    if (exited || Date.now() > end) throw new Error(`the relay's metrics port did not answer: ${proc.output()}`);
    await sleep(50);
  }
}

/**
 * Waits until the server counts requests in Redis (it connects as it starts; until then nothing is
 * counted), asking with requests that count against the address's budget.
 */
async function countingStarted(base: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const res = await fetch(`${base}/no/such/page`);
    await res.arrayBuffer();
    if (res.headers.get('ratelimit-limit') !== null) return;
    await sleep(20);
  }
  throw new Error(`${base} never counted a request`);
}
