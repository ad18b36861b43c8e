// lanes: sqlite postgres
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Relay } from '../../src/events/relay.ts';
import { writeEvents } from '../../src/events/outbox.ts';
import { TEST_DIALECT } from '../helpers/database.ts';
import { type TestUser, activeUser, createClient } from '../helpers/fixtures.ts';
import { useTestServer } from '../helpers/harness.ts';
import { withoutAppIdCheck } from '../../src/db/app-id-check.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { type RunningRelay, startRelay } from '../helpers/relay.ts';

const t = useTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
let master: TestUser;
let sales: TestUser;
let appId: string;
const relays: RunningRelay[] = [];
const FAST = { pollMs: 10, retryBaseMs: 50, retryMaxMs: 200, timeoutMs: 2000, leaseMs: 500 };

function relay(opts: Partial<typeof FAST & { deadAfterMs: number; batchSize: number }> = {}): RunningRelay {
  const r = startRelay(t.server.ctx, { ...FAST, ...opts });
  relays.push(r);
  return r;
}

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  // The test's own reset, over every project: exempt from the app_id check.
  await withoutAppIdCheck(async () => {
    await t.server.ctx.database.db.deleteFrom('webhook_deliveries').execute();
    await t.server.ctx.database.db.deleteFrom('webhooks').execute();
  });
});

/** The documented recipe (docs/events.md): HMAC-SHA256 over "<t>.<raw body>", compared in constant time. */
function verify(secret: string, header: string, rawBody: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${rawBody}`).digest('hex');
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length / 2 && timingSafeEqual(given, Buffer.from(expected, 'hex'));
}

async function hook(url: string, extra: Record<string, string> = {}) {
  const res = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks`, { url, ...extra }, { token: master.token });
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as { id: string; secret: string; url: string; status: string; domainTypes: string[] };
}

async function createCustomer(name: string) {
  const res = await t.server.api.post(`/api/v1.7/app/${appId}/member/${master.id}/customers`, { name }, { token: master.token });
  expect(res.json().status).toBe(1);
  return res.json().data.id as string;
}

beforeAll(async () => {
  const client = await createClient(t.server);
  master = await activeUser(t.server, client);
  sales = await activeUser(t.server, client);
  appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Events' }, { token: master.token })).json().data.appId;
  await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: sales.id }, { token: master.token });
});

describe('webhooks', () => {
  it('registers, lists and removes; Sales and bad input refused', async () => {
    const h = await hook('http://127.0.0.1:9/x', { domain_types: 'Customer' });
    expect(h).toMatchObject({ url: 'http://127.0.0.1:9/x', status: 'active', secret: expect.stringMatching(/^whsec_/) });
    const list = await t.server.api.get(`/api/v1.7/app/${appId}/webhooks`, { token: master.token });
    expect(list.json().data.map((w: { id: string }) => w.id)).toEqual([h.id]);
    expect((await t.server.api.get(`/api/v1.7/app/${appId}/webhooks`, { token: sales.token })).statusCode).toBe(403);
    for (const [url, code] of [
      ['ftp://example.com/x', 'url_invalid'],
      ['not a url', 'url_invalid'],
      ['', 'url_required'],
    ]) {
      const res = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks`, { url }, { token: master.token });
      expect(res.json().code).toBe(code);
    }
    const badTypes = await t.server.api.post(
      `/api/v1.7/app/${appId}/webhooks`,
      { url: 'http://127.0.0.1:9/', domain_types: 'Nope' },
      { token: master.token },
    );
    expect(badTypes.json().code).toBe('domain_types_invalid');
    // Every domain type Rapport writes can be subscribed to by name: unknown visitors' link views, notes and tasks too.
    const ours = await hook('http://127.0.0.1:9/y', { domain_types: 'LinkView,Note,Task' });
    expect(ours.domainTypes).toEqual(['LinkView', 'Note', 'Task']);
    await t.server.api.delete(`/api/v1.7/app/${appId}/webhooks/${ours.id}`, { token: master.token });
    expect((await t.server.api.delete(`/api/v1.7/app/${appId}/webhooks/${h.id}`, { token: master.token })).json()).toEqual({
      status: 1,
      data: true,
    });
    expect((await t.server.api.delete(`/api/v1.7/app/${appId}/webhooks/${h.id}`, { token: master.token })).json().code).toBe(
      'webhook_not_found',
    );
  });

  it('delivers a customer create as a signed batch; a failure is retried and the retry arrives', async () => {
    const receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
    try {
      const h = await hook(receiver.url);
      const customerId = await createCustomer('Webhooked');
      relay();
      await receiver.until(() => receiver.eventIds().length >= 2);
      expect(receiver.requests()).toBeGreaterThanOrEqual(2);
      const d = receiver.received[0];
      if (!d) throw new Error('nothing received');
      expect(d.events.map((e) => `${e.domainType}:${e.event_type}`).sort()).toEqual(['BehaviourLog:create', 'Customer:create']);
      const customerEvent = d.events.find((e) => e.domainType === 'Customer');
      expect(customerEvent).toMatchObject({ domainId: customerId, body: { id: customerId, name: 'Webhooked' } });
      expect(d.headers['x-rapport-event-ids']).toBe(d.events.map((e) => e.id).join(','));
      expect(verify(h.secret, String(d.headers['x-rapport-signature']), d.body)).toBe(true);
      expect(verify('wrong', String(d.headers['x-rapport-signature']), d.body)).toBe(false);
      // The receiver answered before the relay recorded it: poll the log briefly.
      let entry: Record<string, unknown> = {};
      for (let i = 0; i < 50 && entry.status !== 'delivered'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        entry = (await t.server.api.get(`/api/v1.7/app/${appId}/webhooks/${h.id}/deliveries`, { token: master.token })).json().data[0];
      }
      expect(entry).toMatchObject({ status: 'delivered', attempts: 2, lastStatusCode: 200, eventIds: d.events.map((e) => e.id) });
    } finally {
      await receiver.close();
    }
  });

  it('delivers ingested behaviour records with the bodies, ids and order of the feed; copied bodies too', async () => {
    const receiver = await startReceiver();
    try {
      const h = await hook(receiver.url);
      const customerId = await createCustomer('Behaving');
      // An event whose body is a copy (every event written before bodies became references, and Customer events).
      await t.server.ctx.database.db
        .transaction()
        .execute((trx) =>
          writeEvents(
            trx,
            appId,
            [{ event_type: 'update', domainType: 'Customer', domainId: customerId, body: { copied: true } }],
            Date.now(),
          ),
        );
      const apps = await t.server.api.get('/api/v1.7/my-apps', { token: master.token });
      const secret = (apps.json().data as { id: string; secret: string }[]).find((a) => a.id === appId)?.secret as string;
      const batch = [1, 2, 3].map((i) => ({
        event_type: 'create',
        domainType: 'BehaviourLog',
        domainId: `hooked-${i}`,
        body: {
          customerId,
          action: 'send_message',
          when: `2026-05-0${i} 10:00:00`,
          createdTime: `2026-05-0${i} 10:00:01`,
          params: `p${i}`,
          remote_duration: i * 10,
          os: 'Linux',
          ip: '203.0.113.9',
        },
      }));
      const res = await t.server.api.post(`/api/v1.7/app/${appId}/events`, batch, { headers: { 'x-app-secret': secret } });
      expect(res.json()).toEqual({ status: 1, data: { accepted: 3, duplicates: 0 } });
      relay();
      await receiver.until(() => receiver.eventIds().length >= 6);
      const delivered = receiver.received.flatMap((d) => d.events);
      const feed = await t.server.api.get(`/api/v1.7/app/${appId}/events`, { token: master.token, query: { count: 100 } });
      const fromFeed = (feed.json().data.events as { id: string; createdAt: string }[])
        .filter((e) => delivered.some((d) => d.id === e.id))
        .map(({ createdAt: _, ...message }) => message);
      expect(delivered).toEqual(fromFeed);
      expect(delivered.map((e) => `${e.domainType}:${e.domainId}`)).toEqual([
        `Customer:${customerId}`,
        expect.stringMatching(/^BehaviourLog:/),
        `Customer:${customerId}`,
        'BehaviourLog:hooked-1',
        'BehaviourLog:hooked-2',
        'BehaviourLog:hooked-3',
      ]);
      expect(delivered[2]?.body).toEqual({ copied: true });
      expect(delivered[4]?.body).toEqual({
        id: 'hooked-2',
        appId,
        svcUserId: String(master.id),
        customerId,
        customerName: null,
        dealUserId: null,
        action: 'send_message',
        params: 'p2',
        remote_duration: 20,
        description: null,
        when: '2026-05-02 10:00:00',
        content: null,
        clientName: null,
        clientVersion: null,
        os: 'Linux',
        osVersion: null,
        net: null,
        ip: '203.0.113.9',
        location: null,
        province: null,
        city: null,
        createdTime: '2026-05-02 10:00:01',
        userType: 1,
      });
      expect(receiver.received.every((d) => d.headers['x-rapport-event-ids'] === d.events.map((e) => e.id).join(','))).toBe(true);
      expect(verify(h.secret, String(receiver.received[0]?.headers['x-rapport-signature']), String(receiver.received[0]?.body))).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('filters by domain type', async () => {
    const receiver = await startReceiver();
    try {
      await hook(receiver.url, { domain_types: 'Customer' });
      await createCustomer('Filtered');
      relay();
      await receiver.until(() => receiver.eventIds().length >= 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(receiver.received.flatMap((r) => r.events.map((e) => e.domainType))).toEqual(['Customer']);
    } finally {
      await receiver.close();
    }
  });

  it('a 410 answer disables the webhook', async () => {
    const receiver = await startReceiver(() => 410);
    try {
      const h = await hook(receiver.url);
      await createCustomer('Gone');
      relay();
      await receiver.until(() => receiver.requests() >= 1);
      // The relay stores the disabling after the answer arrives: wait for it rather than for a fixed time.
      const stored = async () =>
        (await t.server.api.get(`/api/v1.7/app/${appId}/webhooks`, { token: master.token }))
          .json()
          .data.find((w: { id: string }) => w.id === h.id);
      await expect.poll(async () => (await stored()).status, { timeout: 10_000, interval: 50 }).toBe('disabled');
      expect(await stored()).toMatchObject({ status: 'disabled', disabledReason: expect.stringContaining('410') });
    } finally {
      await receiver.close();
    }
  });

  it('dead-letters after the retry window, and replay sends again', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 200 : 503));
    try {
      const h = await hook(receiver.url);
      await createCustomer('Dead letter');
      const r = relay({ deadAfterMs: 150 });
      await receiver.until(() => receiver.requests() >= 2);
      const deliveries = async () =>
        (await t.server.api.get(`/api/v1.7/app/${appId}/webhooks/${h.id}/deliveries`, { token: master.token })).json().data;
      await expect.poll(async () => (await deliveries())[0]?.status, { timeout: 10_000, interval: 50 }).toBe('dead');
      await r.stop();
      expect((await deliveries())[0]).toMatchObject({ status: 'dead', lastStatusCode: 503 });
      healthy = true;
      const replay = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/${h.id}/replay`, {}, { token: master.token });
      expect(replay.json()).toEqual({ status: 1, data: { deliveries: 1 } });
      relay();
      await receiver.until(() => receiver.eventIds().length >= 2);
      const one = receiver.eventIds()[0] ?? '';
      const chosen = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/${h.id}/replay`, { event_ids: one }, { token: master.token });
      expect(chosen.json().data.deliveries).toBe(1);
      await receiver.until(() => receiver.eventIds().filter((id) => id === one).length >= 2);
    } finally {
      await receiver.close();
    }
  });

  it("a test sends one signed webhook.test event now, answers the receiver's status, and stores nothing", async () => {
    let answer = 200;
    const receiver = await startReceiver(() => answer);
    try {
      const h = await hook(receiver.url);
      const res = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/${h.id}/test`, {}, { token: master.token });
      expect(res.json()).toMatchObject({ status: 1, data: { ok: true, status: 200, error: null } });
      expect(receiver.received).toHaveLength(1);
      const got = receiver.received[0]!;
      expect(verify(h.secret, String(got.headers['x-rapport-signature']), got.body)).toBe(true);
      expect(got.events).toEqual([
        expect.objectContaining({ id: res.json().data.eventId, event_type: 'webhook.test', domainType: 'Webhook', domainId: h.id }),
      ]);
      expect(got.headers['x-rapport-event-ids']).toBe(res.json().data.eventId);
      // A failing receiver: its status, as the answer, not as a failure of the call.
      answer = 500;
      const failed = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/${h.id}/test`, {}, { token: master.token });
      expect(failed.json()).toMatchObject({ status: 1, data: { ok: false, status: 500, error: 'HTTP 500' } });
      // Nothing stored: no delivery, nothing in the feed.
      const log = await t.server.api.get(`/api/v1.7/app/${appId}/webhooks/${h.id}/deliveries`, { token: master.token });
      expect(log.json().data).toEqual([]);
      const feed = await t.server.api.get(`/api/v1.7/app/${appId}/events`, { token: master.token, query: { count: 100 } });
      expect(feed.json().data.events.map((e: { event_type: string }) => e.event_type)).not.toContain('webhook.test');
      // Sales may not; an unknown webhook is webhook_not_found.
      expect((await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/${h.id}/test`, {}, { token: sales.token })).statusCode).toBe(403);
      const unknown = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/nope/test`, {}, { token: master.token });
      expect(unknown.json()).toMatchObject({ status: 0, code: 'webhook_not_found' });
    } finally {
      await receiver.close();
    }
  });

  it('a test of a receiver that is not there answers its error', async () => {
    const h = await hook('http://127.0.0.1:9/nobody');
    const res = await t.server.api.post(`/api/v1.7/app/${appId}/webhooks/${h.id}/test`, {}, { token: master.token });
    expect(res.json()).toMatchObject({ status: 1, data: { ok: false, status: null, error: expect.any(String) } });
  });

  it('a relay stopped mid-way and restarted delivers every event (at least once)', async () => {
    const receiver = await startReceiver();
    try {
      await hook(receiver.url);
      const db = t.server.ctx.database.db;
      const ids: string[] = [];
      await db.transaction().execute(async (trx) => {
        const events = Array.from({ length: 250 }, (_, i) => ({
          event_type: 'create' as const,
          domainType: 'Customer',
          domainId: `bulk-${i}`,
          body: { i },
        }));
        ids.push(...(await writeEvents(trx, appId, events, Date.now())));
      });
      const first = relay({ batchSize: 25 });
      await receiver.until(() => receiver.eventIds().length >= 25);
      await first.stop();
      const sofar = new Set(receiver.eventIds()).size;
      expect(sofar).toBeLessThan(250);
      relay({ batchSize: 25 });
      await receiver.until(() => ids.every((id) => receiver.eventIds().includes(id)), 20_000);
      expect(new Set(receiver.eventIds()).size).toBeGreaterThanOrEqual(250);
    } finally {
      await receiver.close();
    }
  });
});

describe('pull feed', () => {
  it('pages in commit order without skipping or repeating; Master/Admin only', async () => {
    const db = t.server.ctx.database.db;
    for (let i = 0; i < 5; i++) {
      await db
        .transaction()
        .execute((trx) =>
          writeEvents(trx, appId, [{ event_type: 'create', domainType: 'Customer', domainId: `feed-${i}`, body: { i } }], Date.now()),
        );
    }
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const res = await t.server.api.get(`/api/v1.7/app/${appId}/events`, {
        token: master.token,
        query: { count: 3, ...(after ? { after } : {}) },
      });
      const data = res.json().data;
      seen.push(...data.events.map((e: { id: string }) => e.id));
      if (data.events.length === 0) break;
      expect(data.events[0]).toMatchObject({
        id: expect.any(String),
        event_type: expect.any(String),
        domainType: expect.any(String),
        domainId: expect.any(String),
      });
      after = data.next;
    }
    expect(new Set(seen).size).toBe(seen.length);
    const all = await db.selectFrom('outbox').select('id').where('app_id', '=', appId).execute();
    expect(seen.sort()).toEqual(all.map((r) => r.id).sort());
    expect((await t.server.api.get(`/api/v1.7/app/${appId}/events`, { token: sales.token })).statusCode).toBe(403);
    expect((await t.server.api.get(`/api/v1.7/app/${appId}/events`, { token: master.token, query: { after: 'abc' } })).json().code).toBe(
      'Bad Request',
    );
  });

  it.runIf(TEST_DIALECT === 'postgres')('never skips an event whose transaction commits after a later one', async () => {
    const db = t.server.ctx.database.db;
    const start = await t.server.api.get(`/api/v1.7/app/${appId}/events`, { token: master.token, query: { count: 100 } });
    let after = String(start.json().data.next);
    for (;;) {
      const page = (await t.server.api.get(`/api/v1.7/app/${appId}/events`, { token: master.token, query: { count: 100, after } })).json()
        .data;
      if (page.events.length === 0) break;
      after = String(page.next);
    }
    let releaseSlow: () => void = () => {};
    const gate = new Promise<void>((r) => (releaseSlow = r));
    let slowId = '';
    // The slow transaction writes first (earlier created_at) but commits last.
    const slow = db.transaction().execute(async (trx) => {
      slowId =
        (
          await writeEvents(trx, appId, [{ event_type: 'create', domainType: 'Customer', domainId: 'slow', body: {} }], Date.now() - 1000)
        )[0] ?? '';
      await gate;
    });
    await new Promise((r) => setTimeout(r, 50));
    const [fastId] = await db
      .transaction()
      .execute((trx) =>
        writeEvents(trx, appId, [{ event_type: 'create', domainType: 'Customer', domainId: 'fast', body: {} }], Date.now()),
      );
    const page1 = (await t.server.api.get(`/api/v1.7/app/${appId}/events`, { token: master.token, query: { after } })).json().data;
    expect(page1.events.map((e: { id: string }) => e.id)).toEqual([fastId]);
    releaseSlow();
    await slow;
    const page2 = (await t.server.api.get(`/api/v1.7/app/${appId}/events`, { token: master.token, query: { after: page1.next } })).json()
      .data;
    expect(page2.events.map((e: { id: string }) => e.id)).toEqual([slowId]);
  });
});

describe('retention', () => {
  it('prunes delivered events past the retention period, never undelivered ones', async () => {
    const db = t.server.ctx.database.db;
    const receiver = await startReceiver(() => 500);
    try {
      const old = Date.now() - 8 * 24 * 3600 * 1000;
      const [delivered] = await db
        .transaction()
        .execute((trx) => writeEvents(trx, appId, [{ event_type: 'create', domainType: 'Customer', domainId: 'old-1', body: {} }], old));
      const r = new Relay(t.server.ctx, FAST);
      await r.tick();
      // A webhook registered now owes nothing older; an event written after it is owed and undelivered.
      await hook(receiver.url);
      const [owed] = await db
        .transaction()
        .execute((trx) => writeEvents(trx, appId, [{ event_type: 'create', domainType: 'Customer', domainId: 'old-2', body: {} }], old));
      await r.tick();
      await r.prune();
      const left = await db
        .selectFrom('outbox')
        .select('id')
        .where('app_id', '=', appId)
        .where('id', 'in', [delivered ?? '', owed ?? ''])
        .execute();
      expect(left.map((x) => x.id)).toEqual([owed]);
      await r.close();
    } finally {
      await receiver.close();
    }
  });
});
