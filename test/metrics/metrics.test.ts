// lanes: sqlite postgres
import fs from 'node:fs';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { Relay } from '../../src/events/relay.ts';
import { TEST_DIALECT } from '../helpers/database.ts';
import { useTestServer } from '../helpers/harness.ts';
import { DAY, type HistoryProject, addCustomers, ago, event, historyProject, ingest } from '../helpers/histories.ts';
import { families, parseSamples, sampleValue } from '../helpers/prometheus.ts';
import { withoutAppIdCheck } from '../../src/db/app-id-check.ts';
import { startReceiver } from '../helpers/receiver.ts';

const TOKEN = 'metrics-token-for-tests-0123456789';
// Not about load: a machine busy with other work must not get these requests refused as overloaded.
const t = useTestServer({ METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE: 'true', MAX_EVENT_LOOP_DELAY: '0' });
const off = useTestServer({ MAX_EVENT_LOOP_DELAY: '0' });
let p: HistoryProject;

async function scrape() {
  const res = await t.server.api.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode, res.body).toBe(200);
  return { text: res.body, samples: parseSamples(res.body) };
}

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [{ id: 'metrics-cust', owner: p.sales.id }]);
});

describe('/metrics on the API port', () => {
  it('is not served at all without METRICS_TOKEN', async () => {
    expect((await off.server.api.get('/metrics')).statusCode).toBe(404);
    expect((await off.server.api.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(404);
  });

  it('refuses a scrape without the token, or with another, as the API refuses a bad token', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${p.master.token}`, `Basic ${TOKEN}`, TOKEN]) {
      const res = await t.server.api.get('/metrics', { headers: authorization ? { authorization } : {} });
      expect(res.statusCode, String(authorization)).toBe(403);
      expect(res.json()).toEqual({ error: 'access_denied', error_description: expect.any(String) });
      expect(res.body).not.toContain('rapport_');
    }
  });

  it('serves the Prometheus text format with the token', async () => {
    const res = await t.server.api.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const names = families(res.body);
    for (const family of [
      'rapport_http_requests_total',
      'rapport_http_request_duration_seconds',
      'rapport_ingest_batches_total',
      'rapport_ingest_records_total',
      'rapport_write_groups_total',
      'rapport_write_group_records',
      'rapport_write_group_duration_seconds',
      'rapport_write_queue_records',
      'rapport_write_queue_refused_total',
      'rapport_outbox_pending_events',
      'rapport_outbox_oldest_pending_age_seconds',
      'rapport_webhook_deliveries_total',
      'rapport_webhook_deliveries_pending',
      'rapport_webhook_oldest_pending_delivery_age_seconds',
      'rapport_webhook_deliveries_dead',
      'rapport_db_statement_duration_seconds',
      'rapport_db_pool_connections',
      'rapport_db_pool_idle_connections',
      'rapport_db_pool_waiting_clients',
      'rapport_database_up',
      // prom-client's process metrics: memory and event-loop lag.
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(names, family).toContain(family);
    }
    expect(sampleValue(parseSamples(res.body), 'rapport_database_up')).toBe(1);
  });

  it('has every metric the Grafana dashboard and the operations page name', async () => {
    const { text } = await scrape();
    const names = families(text);
    const named = (file: string) =>
      new Set(
        [...fs.readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8').matchAll(/\b(rapport|nodejs|process)_[a-z0-9_]+/g)].map(
          (m) => m[0],
        ),
      );
    for (const file of ['grafana-dashboard.json', 'operations.md']) {
      for (const name of named(file)) {
        if (name === 'process_' || name.endsWith('_')) continue;
        const family = name.replace(/_(bucket|sum|count)$/, '');
        expect(names.has(family) || names.has(name), `${file}: ${name}`).toBe(true);
      }
    }
  });
});

describe('what the metrics count', () => {
  it('counts requests by route template and status, never by raw URL', async () => {
    const before = (await scrape()).samples;
    const route = { method: 'GET', route: '/api/v1.7/app/:appId', status: '200' };
    await t.server.api.get(`/api/v1.7/app/${p.appId}`, { token: p.master.token });
    await t.server.api.get(`/api/v1.7/app/${p.appId}`, { token: p.sales.token });
    await t.server.api.get('/nowhere/at-all-1');
    await t.server.api.get('/nowhere/at-all-2');
    const { text, samples } = await scrape();
    expect(sampleValue(samples, 'rapport_http_requests_total', route) - sampleValue(before, 'rapport_http_requests_total', route)).toBe(2);
    const histogram = { method: 'GET', route: '/api/v1.7/app/:appId' };
    const count = 'rapport_http_request_duration_seconds_count';
    expect(sampleValue(samples, count, histogram) - sampleValue(before, count, histogram)).toBe(2);
    const unmatched = { method: 'GET', route: '(unmatched)', status: '404' };
    expect(
      sampleValue(samples, 'rapport_http_requests_total', unmatched) - sampleValue(before, 'rapport_http_requests_total', unmatched),
    ).toBe(2);
    expect(text).not.toContain(p.appId);
    expect(text).not.toContain('at-all');
  });

  it('counts ingestion batches and records, and the group commits that wrote them', async () => {
    const before = (await scrape()).samples;
    const one = (id: string) => event('BehaviourLog', id, { customerId: 'metrics-cust', action: 'send_message', when: ago(DAY) });
    expect((await ingest(t.server, p, [one('m-b1'), one('m-b2')])).json()).toMatchObject({ status: 1, data: { accepted: 2 } });
    expect((await ingest(t.server, p, [one('m-b2'), one('m-b3')])).json()).toMatchObject({
      status: 1,
      data: { accepted: 1, duplicates: 1 },
    });
    expect((await ingest(t.server, p, [{ nonsense: true }])).json()).toMatchObject({ status: 0, code: 'invalid_events' });
    const after = (await scrape()).samples;
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(delta('rapport_ingest_batches_total', { result: 'accepted' })).toBe(2);
    expect(delta('rapport_ingest_batches_total', { result: 'invalid_events' })).toBe(1);
    expect(delta('rapport_ingest_records_total', { result: 'accepted' })).toBe(3);
    expect(delta('rapport_ingest_records_total', { result: 'duplicate' })).toBe(1);
    // Small batches go through the group commit: at least one group, holding the three records.
    expect(delta('rapport_write_groups_total')).toBeGreaterThanOrEqual(1);
    expect(delta('rapport_write_group_records_sum')).toBe(3);
    expect(sampleValue(after, 'rapport_write_queue_records')).toBe(0);
    expect(delta('rapport_db_statement_duration_seconds_count', { kind: 'query' })).toBeGreaterThan(0);
    expect(delta('rapport_db_statement_duration_seconds_count', { kind: 'read' })).toBeGreaterThan(0);
  });

  it('shows the outbox backlog until the relay takes it, and webhook deliveries by result', async () => {
    const receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
    try {
      const hook = await t.server.api.post(`/api/v1.7/app/${p.appId}/webhooks`, { url: receiver.url }, { token: p.master.token });
      expect(hook.json().status).toBe(1);
      const relay = new Relay(t.server.ctx, { retryBaseMs: 0, retryMaxMs: 0 });
      // Whatever earlier tests left waiting goes first.
      while (await relay.tick());
      const res = await ingest(t.server, p, [
        event('BehaviourLog', 'm-hook', { customerId: 'metrics-cust', action: 'send_message', when: ago(DAY) }),
      ]);
      expect(res.json()).toMatchObject({ status: 1, data: { accepted: 1 } });
      const waiting = (await scrape()).samples;
      expect(sampleValue(waiting, 'rapport_outbox_pending_events')).toBe(1);
      expect(sampleValue(waiting, 'rapport_outbox_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
      const before = waiting;

      await relay.tick(); // sequenced, planned, sent: the receiver answers 500
      const failed = (await scrape()).samples;
      expect(sampleValue(failed, 'rapport_outbox_pending_events')).toBe(0);
      expect(sampleValue(failed, 'rapport_webhook_deliveries_pending')).toBe(1);
      expect(
        sampleValue(failed, 'rapport_webhook_deliveries_total', { result: 'failed' }) -
          sampleValue(before, 'rapport_webhook_deliveries_total', { result: 'failed' }),
      ).toBe(1);

      await relay.tick(); // retried at once (no back-off here): delivered
      const delivered = (await scrape()).samples;
      expect(sampleValue(delivered, 'rapport_webhook_deliveries_pending')).toBe(0);
      expect(sampleValue(delivered, 'rapport_webhook_oldest_pending_delivery_age_seconds')).toBe(0);
      expect(
        sampleValue(delivered, 'rapport_webhook_deliveries_total', { result: 'delivered' }) -
          sampleValue(before, 'rapport_webhook_deliveries_total', { result: 'delivered' }),
      ).toBe(1);
      expect(receiver.received.flatMap((d) => d.events.map((e) => e.domainId))).toContain('m-hook');
    } finally {
      await receiver.close();
      // The test's own reset, over every project: exempt from the app_id check.
      await withoutAppIdCheck(async () => {
        await t.server.ctx.database.db.deleteFrom('webhook_deliveries').execute();
        await t.server.ctx.database.db.deleteFrom('webhooks').execute();
      });
    }
  });

  it.runIf(TEST_DIALECT === 'postgres')('reports the PostgreSQL pools', async () => {
    const { samples } = await scrape();
    expect(sampleValue(samples, 'rapport_db_pool_max_connections', { pool: 'write' })).toBe(10);
    expect(sampleValue(samples, 'rapport_db_pool_max_connections', { pool: 'read' })).toBe(6);
    expect(sampleValue(samples, 'rapport_db_pool_connections', { pool: 'write' })).toBeGreaterThan(0);
    // Waiting callers: at least the series of each pool (the scrape's own backlog read may be one of them).
    expect(samples.filter((s) => s.name === 'rapport_db_pool_waiting_clients').map((s) => s.labels.pool)).toEqual(['write', 'read']);
  });
});

describe('/readyz', () => {
  it('is ready when the database answers and has every migration; 503 while one is missing', async () => {
    const ready = await off.server.api.get('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });

    const db = off.server.ctx.database.db;
    const { rows } = await sql<{
      name: string;
      timestamp: string;
    }>`select name, timestamp from rapport_migrations where name = '010_ingest_write_costs'`.execute(db);
    const row = rows[0] as { name: string; timestamp: string };
    await sql`delete from rapport_migrations where name = ${row.name}`.execute(db);
    try {
      const pending = await off.server.api.get('/readyz');
      expect(pending.statusCode).toBe(503);
      expect(pending.json()).toEqual({ status: 'unavailable', reason: 'migrations_pending', pending: ['010_ingest_write_costs'] });
      // Liveness does not care.
      expect((await off.server.api.get('/healthz')).statusCode).toBe(200);
    } finally {
      await sql`insert into rapport_migrations (name, timestamp) values (${row.name}, ${row.timestamp})`.execute(db);
    }
    expect((await off.server.api.get('/readyz')).statusCode).toBe(200);
  });
});
