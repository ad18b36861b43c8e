// lanes: sqlite postgres
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { statementSizes } from '../../../src/db/bulk.ts';
import { useTestServer } from '../../helpers/harness.ts';
import {
  DAY,
  type HistoryProject,
  NO_CLIENT_FIELDS,
  addCustomers,
  ago,
  customerEvent,
  event,
  feedEvents,
  historyProject,
  ingest,
} from '../../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;

const behaviour = (id: string, customerId: string, action: string, content: unknown, extra: Record<string, unknown> = {}) =>
  event('BehaviourLog', id, { customerId, action, when: ago(DAY), content: JSON.stringify(content), ...extra });
const behaviourEvent = (id: string, customerId: string) =>
  event('BehaviourLog', id, { customerId, action: 'send_message', when: ago(DAY) });

async function links(token: string) {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/links`, { token, query: { count: 100 } });
  return (res.json() as { data: { id: string }[] }).data.map((l) => l.id);
}

async function behaviourIds(customerId: string) {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/customer/${customerId}/behaviour`, {
    token: p.master.token,
    query: { count: 100 },
  });
  return (res.json() as { data: { id: string }[] }).data.map((b) => b.id);
}

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'cust-1', owner: p.sales.id },
    { id: 'cust-2', owner: p.sales2.id },
  ]);
});

describe('ingestion authentication', () => {
  const batch = () => [event('Post', `auth-${Math.random().toString(36).slice(2)}`, { ownerId: p.sales.id, sendTime: ago(DAY) })];

  it('refuses a request without secret or token with 403 access_denied', async () => {
    const res = await t.server.api.post(`/api/v1.7/app/${p.appId}/events`, batch());
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'access_denied', error_description: expect.any(String) });
  });

  it('refuses a wrong secret with 403 access_denied, in the header or the parameter', async () => {
    const header = await ingest(t.server, p, batch(), { secret: 'not-the-secret' });
    expect(header.statusCode).toBe(403);
    expect(header.json().error).toBe('access_denied');
    const param = await t.server.api.post(`/api/v1.7/app/${p.appId}/events`, batch(), { query: { app_secret: 'wrong' } });
    expect(param.statusCode).toBe(403);
    expect(param.json().error).toBe('access_denied');
  });

  it('refuses Sales and non-member tokens with 403 forbidden', async () => {
    for (const user of [p.sales, p.outsider]) {
      const res = await ingest(t.server, p, batch(), { token: user.token });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('forbidden');
    }
  });

  it('accepts the secret (header or app_secret) and Master/Admin tokens', async () => {
    expect((await ingest(t.server, p, batch())).json()).toEqual({ status: 1, data: { accepted: 1, duplicates: 0 } });
    const param = await t.server.api.post(`/api/v1.7/app/${p.appId}/events`, batch(), { query: { app_secret: p.secret } });
    expect(param.json().data.accepted).toBe(1);
    for (const user of [p.master, p.admin]) {
      expect((await ingest(t.server, p, batch(), { token: user.token })).json().data.accepted).toBe(1);
    }
  });

  it('answers app_not_found for an unknown project with a valid token, and access_denied with a secret', async () => {
    const token = await t.server.api.post('/api/v1.7/app/no-such-app/events', batch(), { token: p.master.token });
    expect(token.json()).toMatchObject({ status: 0, code: 'app_not_found' });
    const secret = await t.server.api.post('/api/v1.7/app/no-such-app/events', batch(), { headers: { 'x-app-secret': p.secret } });
    expect(secret.statusCode).toBe(403);
  });
});

describe('a batch of every domain type', () => {
  const everyType = () => [
    event('Link', 'link-1', { name: 'Deck', type: 1, creatorId: p.sales.id, tags: ['ai'] }),
    event('LinkViewLog', 'view-1', {
      linkId: 'link-1',
      viewTime: ago(DAY),
      viewerId: 'cust-1',
      durations: [{ pageIndex: '1', duration: '1000' }],
    }),
    event('Clue', 'clue-1', { linkId: 'link-1', name: 'Ann', phone: '13800000000' }),
    event('Call', 'call-1', {
      fromUserType: 2,
      fromUserId: String(p.sales.id),
      toUserType: 1,
      toUserId: 'cust-1',
      callStatus: 1,
      callTime: ago(DAY),
    }),
    event('Post', 'post-1', { postId: 'post-1', ownerId: p.sales.id, sendTime: ago(DAY), title: 'News' }),
    behaviour('beh-1', 'cust-1', 'link_view_log', { linkId: 'link-1', linkViewLogId: 'view-1' }),
    behaviour('beh-2', 'cust-1', 'send_message', {}),
  ];

  it('stores each record once and writes an outbox event per behaviour record', async () => {
    const res = await ingest(t.server, p, everyType());
    expect(res.json()).toEqual({ status: 1, data: { accepted: 7, duplicates: 0 } });
    expect(await links(p.master.token)).toContain('link-1');
    expect(await behaviourIds('cust-1')).toEqual(expect.arrayContaining(['beh-1', 'beh-2']));
    const events = (await feedEvents(t.server, p.appId, p.master.token)).filter(
      (e) => e.domainType === 'BehaviourLog' && ['beh-1', 'beh-2'].includes(e.domainId),
    );
    expect(events.map((e) => [e.domainId, e.event_type])).toEqual([
      ['beh-1', 'create'],
      ['beh-2', 'create'],
    ]);
    // The documented behaviour body, every field (docs/events.md), built from the stored record.
    const stored = await t.server.ctx.database.db
      .selectFrom('behaviour_logs')
      .selectAll()
      .where('app_id', '=', p.appId)
      .where('id', '=', 'beh-1')
      .executeTakeFirstOrThrow();
    expect(events[0]?.body).toEqual({
      id: 'beh-1',
      appId: p.appId,
      svcUserId: String(p.sales.id),
      customerId: 'cust-1',
      customerName: null,
      dealUserId: null,
      action: 'link_view_log',
      params: null,
      remote_duration: null,
      description: null,
      when: t.server.ctx.clock.format(stored.when_at),
      content: JSON.stringify({ linkId: 'link-1', linkViewLogId: 'view-1' }),
      ...NO_CLIENT_FIELDS,
      createdTime: t.server.ctx.clock.format(stored.created_at),
      userType: 0,
    });
  });

  it('stores nothing twice when the batch is sent again', async () => {
    const res = await ingest(t.server, p, everyType());
    expect(res.json()).toEqual({ status: 1, data: { accepted: 0, duplicates: 7 } });
    const views = await t.server.api.get('/api/v1.7/link/link-1/view-logs', { token: p.master.token });
    expect(views.json().data).toHaveLength(1);
    const outbox = await t.server.ctx.database.db
      .selectFrom('outbox')
      .select('id')
      .where('app_id', '=', p.appId)
      .where('domain_id', '=', 'beh-1')
      .execute();
    expect(outbox).toHaveLength(1);
    const overview = await t.server.api.get('/api/v1.7/customer/cust-1/overview', { token: p.master.token });
    expect(overview.json().data).toMatchObject({ linkCount: 1, smsCount: 1 });
  });

  it('counts a repeat inside one batch as a duplicate', async () => {
    const item = behaviour('beh-repeat', 'cust-1', 'send_message', {});
    expect((await ingest(t.server, p, [item, item])).json().data).toEqual({ accepted: 1, duplicates: 1 });
  });

  it('refuses an id another project already uses', async () => {
    const other = await historyProject(t.server);
    await addCustomers(t.server, other, [{ id: 'other-cust', owner: other.master.id }]);
    const res = await ingest(t.server, other, [event('Link', 'link-1', { name: 'x', type: 2, creatorId: other.master.id })]);
    expect(res.json()).toMatchObject({
      status: 0,
      code: 'invalid_events',
      errors: [{ index: 0, msg: expect.stringContaining('another project') }],
    });
  });
});

describe('all-or-nothing validation', () => {
  it('stores nothing when one item is invalid, and names its index', async () => {
    const res = await ingest(t.server, p, [
      event('Link', 'link-ok', { name: 'Fine', type: 2, creatorId: p.sales.id }),
      behaviour('beh-ok', 'cust-1', 'send_message', {}),
      event('Call', 'call-bad', {
        fromUserType: 2,
        fromUserId: String(p.sales.id),
        toUserType: 1,
        toUserId: 'cust-1',
        callStatus: 1,
        callTime: 'yesterday',
      }),
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 0,
      code: 'invalid_events',
      msg: expect.any(String),
      errors: [{ index: 2, msg: expect.stringContaining('callTime') }],
    });
    expect(await links(p.master.token)).not.toContain('link-ok');
    expect(await behaviourIds('cust-1')).not.toContain('beh-ok');
  });

  it.each([
    ['an unknown domainType', event('Order', 'o-1', {}), 'domainType'],
    [
      'an event_type other than create',
      { ...event('Post', 'x-1', { ownerId: 1, sendTime: ago(DAY) }), event_type: 'update' },
      'event_type',
    ],
    ['a bad domainId', event('Post', 'has space', { ownerId: 1, sendTime: ago(DAY) }), 'domainId'],
    ['a body id different from domainId', event('Link', 'l-x', { id: 'l-y', name: 'n', type: 1, creatorId: 1 }), 'domainId'],
    ['a postId different from domainId', event('Post', 'p-x', { postId: 'p-y', ownerId: 1, sendTime: ago(DAY) }), 'domainId'],
    ['an impossible date', behaviour('b-date', 'cust-1', 'send_message', {}, { when: '2026-02-30 10:00:00' }), 'when'],
    [
      'content that is not JSON',
      {
        ...behaviour('b-json', 'cust-1', 'send_message', {}),
        body: { customerId: 'cust-1', action: 'send_message', when: ago(DAY), content: '{oops' },
      },
      'content',
    ],
    ['content of the wrong shape for its action', behaviour('b-shape', 'cust-1', 'link_view_log', { linkId: 42 }), 'content.linkId'],
    ['a known action missing a required content field', behaviour('b-req', 'cust-1', 'call', {}), 'content.record_id'],
    ['an action name with bad characters', behaviour('b-name', 'cust-1', 'Bad-Action', {}), 'action'],
    ['a userType the action does not have', behaviour('b-type', 'cust-1', 'send_message', {}, { userType: 0 }), 'userType'],
    [
      'a string where a number belongs',
      event('Call', 'c-num', {
        fromUserType: 'two',
        fromUserId: '1',
        toUserType: 1,
        toUserId: 'cust-1',
        callStatus: 1,
        callTime: ago(DAY),
      }),
      'fromUserType',
    ],
    [
      'a call status outside 0/1',
      event('Call', 'c-st', { fromUserType: 2, fromUserId: '1', toUserType: 1, toUserId: 'cust-1', callStatus: 3, callTime: ago(DAY) }),
      'callStatus',
    ],
    ['a too long name', event('Link', 'l-long', { name: 'x'.repeat(300), type: 1, creatorId: 1 }), 'name'],
    ['tags that are not strings', event('Link', 'l-tags', { name: 'n', type: 1, creatorId: 1, tags: [1] }), 'tags'],
    ['a body that is not an object', { event_type: 'create', domainType: 'Post', domainId: 'p-arr', body: [] }, 'body'],
  ])('refuses %s', async (_what, item, field) => {
    const res = await ingest(t.server, p, [behaviour(`b-first-${field}`, 'cust-1', 'send_message', {}), item]);
    expect(res.json()).toMatchObject({ status: 0, code: 'invalid_events', errors: [{ index: 1, msg: expect.stringContaining(field) }] });
    expect(await behaviourIds('cust-1')).not.toContain(`b-first-${field}`);
  });

  it('lists every invalid item', async () => {
    const res = await ingest(t.server, p, [event('X', 'a', {}), behaviour('b-fine', 'cust-1', 'send_message', {}), event('Y', 'b', {})]);
    expect(res.json().errors.map((e: { index: number }) => e.index)).toEqual([0, 2]);
  });

  it('refuses a body that is not an array, and more than 1000 items', async () => {
    const obj = await ingest(t.server, p, { event_type: 'create' });
    expect(obj.json()).toMatchObject({ status: 0, code: 'invalid_events' });
    const many = Array.from({ length: 1001 }, (_, i) => behaviour(`many-${i}`, 'cust-1', 'send_message', {}));
    const res = await ingest(t.server, p, many);
    expect(res.json()).toMatchObject({ status: 0, code: 'invalid_events', msg: expect.stringContaining('1000') });
  });

  it('answers 413 beyond 5 MB', async () => {
    const big = [behaviour('big', 'cust-1', 'send_message', {}, { description: 'x'.repeat(5 * 1024 * 1024) })];
    const res = await ingest(t.server, p, big);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ status: 0, code: 'payload_too_large' });
  });

  it('stores an unknown (well-formed) action and counts it in total only', async () => {
    await addCustomers(t.server, p, [{ id: 'cust-unknown', owner: p.sales.id }]);
    const before = (await t.server.api.get('/api/v1.7/customer/cust-unknown/overview', { token: p.master.token })).json().data;
    const res = await ingest(t.server, p, [behaviour('b-custom', 'cust-unknown', 'our_own_action', { anything: [1, 2] })]);
    expect(res.json().data.accepted).toBe(1);
    const after = (await t.server.api.get('/api/v1.7/customer/cust-unknown/overview', { token: p.master.token })).json().data;
    expect(after).toEqual({ ...before, total: before.total + 1 });
  });
});

describe('Customer items', () => {
  it('validates each customer as if created alone after the earlier ones: uniqueness', async () => {
    const q = await historyProject(t.server);
    // A project whose phone attribute is unique (the defaults have none).
    await t.server.ctx.database.db
      .updateTable('customer_metadata')
      .set({ is_unique: 1 })
      .where('app_id', '=', q.appId)
      .where('name', '=', 'phone')
      .execute();
    const stored = await ingest(t.server, q, [customerEvent('u-stored', { phone: '13900000001' })]);
    expect(stored.json()).toEqual({ status: 1, data: { accepted: 1, duplicates: 0 } });
    // Against a stored customer, and against an earlier item of the same batch.
    for (const [batch, index] of [
      [[customerEvent('u-1', { phone: '13900000002' }), customerEvent('u-2', { phone: '13900000001' })], 1],
      [[customerEvent('u-3', { phone: '13900000003' }), customerEvent('u-4', { phone: '13900000003' })], 1],
    ] as const) {
      const res = await ingest(t.server, q, batch);
      expect(res.json()).toMatchObject({
        status: 0,
        code: 'invalid_events',
        errors: [{ index, msg: expect.stringMatching(/^phone_unique/) }],
      });
    }
    // Nothing of a refused batch was stored; a later attribute's error does not hide an earlier one's.
    const ok = await ingest(t.server, q, [customerEvent('u-1', { phone: '13900000002' }), customerEvent('u-3', { phone: '13900000003' })]);
    expect(ok.json()).toEqual({ status: 1, data: { accepted: 2, duplicates: 0 } });
    const both = await ingest(t.server, q, [customerEvent('u-5', { phone: '13900000003', email: 'not an e-mail' })]);
    expect(both.json().errors).toEqual([{ index: 0, msg: expect.stringMatching(/^phone_unique/) }]);
    const bad = await ingest(t.server, q, [customerEvent('u-6', { phone: '13900000006' }), customerEvent('u-7', { email: 'nope' })]);
    expect(bad.json().errors).toEqual([{ index: 1, msg: expect.stringMatching(/^email_invalid/) }]);
  });

  it('stores a batch of customers with their create records, events in order and whetherMerge as one by one', async () => {
    const q = await historyProject(t.server);
    const res = await ingest(t.server, q, [
      customerEvent('m-1', { phone: '13900000011', svcUserId: q.sales.id }),
      customerEvent('m-2', { phone: '13900000011', svcUserId: q.sales.id }),
      customerEvent('m-3', { phone: '13900000011', svcUserId: q.sales2.id }),
      customerEvent('m-4', { email: 'Twin@Example.com', svcUserId: q.sales.id }),
      customerEvent('m-5', { email: 'twin@example.com', svcUserId: q.sales.id }),
      behaviourEvent('m-b1', 'm-2'),
    ]);
    expect(res.json()).toEqual({ status: 1, data: { accepted: 6, duplicates: 0 } });
    const events = await feedEvents(t.server, q.appId, q.master.token);
    const customers = events.filter((e) => e.domainType === 'Customer');
    expect(customers.map((e) => [e.domainId, e.body.whetherMerge, e.body.svcUserId])).toEqual([
      ['m-1', 0, String(q.sales.id)],
      ['m-2', 1, String(q.sales.id)],
      ['m-3', 0, String(q.sales2.id)],
      ['m-4', 0, String(q.sales.id)],
      ['m-5', 1, String(q.sales.id)],
    ]);
    // Each customer's event, then its create record's; the batch's behaviour record last.
    expect(events.map((e) => (e.domainType === 'Customer' ? e.domainId : `${e.body.action}:${e.body.customerId}`))).toEqual([
      'm-1',
      'create:m-1',
      'm-2',
      'create:m-2',
      'm-3',
      'create:m-3',
      'm-4',
      'create:m-4',
      'm-5',
      'create:m-5',
      'send_message:m-2',
    ]);
    const created = events.find((e) => e.domainType === 'BehaviourLog' && e.body.customerId === 'm-2');
    expect(JSON.parse(String(created?.body.content))).toEqual(customers[1]?.body);
    const detail = await t.server.api.get(`/api/v1.7/customer/m-2/detail`, { token: q.master.token });
    expect(detail.json().data).toMatchObject({ id: 'm-2', whetherMerge: 1 });
    const overview = await t.server.api.get('/api/v1.7/customer/m-2/overview', { token: q.master.token });
    expect(overview.json().data).toMatchObject({ total: 1, smsCount: 1 }); // the create record is bookkeeping
  });

  it('stores 1000 customers in one batch', async () => {
    const q = await historyProject(t.server);
    const batch = Array.from({ length: 1000 }, (_, i) => customerEvent(`k-${i}`, { phone: `137${String(i).padStart(8, '0')}` }));
    expect((await ingest(t.server, q, batch)).json()).toEqual({ status: 1, data: { accepted: 1000, duplicates: 0 } });
    expect((await ingest(t.server, q, batch)).json()).toEqual({ status: 1, data: { accepted: 0, duplicates: 1000 } });
    const list = await t.server.api.get(`/api/v1.7/app/${q.appId}/member/all/customers`, { token: q.master.token, query: { count: 1 } });
    expect(list.json().data[0]).toMatchObject({ newCount: 1 });
    const events = await feedEvents(t.server, q.appId, q.master.token);
    expect(events).toHaveLength(2000);
  });
});

describe('batches that split into several statements', () => {
  it('writes any row count as full statements and powers of two, so a table has few statement shapes', () => {
    const shapes = new Set<number>();
    for (let total = 0; total <= 3000; total += 1) {
      const sizes = statementSizes(total, 136);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(total);
      for (const s of sizes) shapes.add(s);
    }
    expect([...shapes].sort((a, b) => b - a)).toEqual([136, 128, 64, 32, 16, 8, 4, 2, 1]);
    expect(statementSizes(1000, 1000)).toEqual([1000]);
  });

  it('stores every record of a batch whose tables get odd row counts, and knows them all on the way back', async () => {
    const q = await historyProject(t.server);
    // 301 customers: on SQLite the rows go in as statements of fixed sizes (db/bulk.ts statementSizes).
    const customers = Array.from({ length: 301 }, (_, i) => customerEvent(`s-${i}`, { svcUserId: q.sales.id }));
    expect((await ingest(t.server, q, customers)).json()).toEqual({ status: 1, data: { accepted: 301, duplicates: 0 } });
    // 999 records over the 301: rollups and totals get row counts that are not a statement's size.
    const records = Array.from({ length: 999 }, (_, i) =>
      i % 2
        ? behaviour(`sb-${i}`, `s-${i % 301}`, 'send_message', {})
        : behaviour(`sb-${i}`, `s-${i % 301}`, 'call', { record_id: `r${i}` }),
    );
    expect((await ingest(t.server, q, records)).json()).toEqual({ status: 1, data: { accepted: 999, duplicates: 0 } });
    expect((await ingest(t.server, q, records)).json()).toEqual({ status: 1, data: { accepted: 0, duplicates: 999 } });
    for (const i of [0, 150, 300]) {
      const mine = records.filter((_, j) => j % 301 === i);
      const overview = await t.server.api.get(`/api/v1.7/customer/s-${i}/overview`, { token: q.master.token });
      expect(overview.json().data).toMatchObject({
        total: mine.length, // the record of the customer's creation is bookkeeping, not activity
        smsCount: mine.filter((r) => r.body.action === 'send_message').length,
        callCount: mine.filter((r) => r.body.action === 'call').length,
      });
    }
  });
});

describe('references', () => {
  it('refuses a behaviour record of an unknown customer', async () => {
    const res = await ingest(t.server, p, [behaviour('b-nobody', 'no-such-customer', 'send_message', {})]);
    expect(res.json()).toMatchObject({ code: 'invalid_events', errors: [{ index: 0, msg: expect.stringContaining('no-such-customer') }] });
  });

  it('refuses a customer of another project', async () => {
    const res = await ingest(t.server, p, [behaviour('b-other', 'other-cust', 'send_message', {})]);
    expect(res.json()).toMatchObject({ code: 'invalid_events', errors: [{ index: 0 }] });
  });

  it('refuses a view log of an unknown link, and a link view naming an unknown link', async () => {
    const res = await ingest(t.server, p, [
      event('LinkViewLog', 'v-nolink', { linkId: 'no-such-link', viewTime: ago(DAY) }),
      behaviour('b-nolink', 'cust-1', 'link_view_log', { linkId: 'no-such-link' }),
      event('Link', 'l-dir', { name: 'n', type: 1, creatorId: p.sales.id, isDirectional: 1, customerId: 'no-such-customer' }),
      event('Call', 'c-nocust', {
        fromUserType: 2,
        fromUserId: '1',
        toUserType: 1,
        toUserId: 'no-such-customer',
        callStatus: 0,
        callTime: ago(DAY),
      }),
    ]);
    expect(res.json().errors.map((e: { index: number }) => e.index)).toEqual([0, 1, 2, 3]);
  });

  it('resolves references to earlier items of the same batch, not to later ones', async () => {
    const later = await ingest(t.server, p, [
      event('LinkViewLog', 'v-early', { linkId: 'l-later', viewTime: ago(DAY) }),
      event('Link', 'l-later', { name: 'n', type: 1, creatorId: p.sales.id }),
    ]);
    expect(later.json()).toMatchObject({ code: 'invalid_events', errors: [{ index: 0 }] });
    const earlier = await ingest(t.server, p, [
      event('Link', 'l-earlier', { name: 'n', type: 1, creatorId: p.sales.id, tags: ['x'] }),
      event('LinkViewLog', 'v-late', { linkId: 'l-earlier', viewTime: ago(DAY) }),
      behaviour('b-late', 'cust-1', 'link_view_log', { linkId: 'l-earlier', linkViewLogId: 'v-late' }),
    ]);
    expect(earlier.json()).toEqual({ status: 1, data: { accepted: 3, duplicates: 0 } });
  });

  it('refuses a share token another link has', async () => {
    await ingest(t.server, p, [event('Link', 'l-tok', { name: 'n', type: 1, creatorId: p.sales.id, shareToken: 'same-token' })]);
    const res = await ingest(t.server, p, [
      event('Link', 'l-tok2', { name: 'n', type: 1, creatorId: p.sales.id, shareToken: 'same-token' }),
    ]);
    expect(res.json()).toMatchObject({ code: 'invalid_events', errors: [{ index: 0, msg: expect.stringContaining('shareToken') }] });
  });
});

describe('docs/actions.md', () => {
  it('lists every known action with the counter it feeds', async () => {
    const { ACTIONS } = await import('../../../src/modules/behaviour/actions.ts');
    const doc = fs.readFileSync(new URL('../../../docs/actions.md', import.meta.url), 'utf8');
    const rows = new Map(
      doc
        .split('\n')
        .filter((l) => /^\| `[a-z0-9_]+`/.test(l))
        .map((l) => [/`([a-z0-9_]+)`/.exec(l)?.[1] ?? '', l] as const),
    );
    expect([...rows.keys()].sort()).toEqual(Object.keys(ACTIONS).sort());
    for (const [name, spec] of Object.entries(ACTIONS)) {
      const counter = 'counter' in spec ? spec.counter : undefined;
      const partOf = 'partOf' in spec ? spec.partOf : undefined;
      const expected = counter
        ? `\`${counter}\``
        : partOf
          ? `part of its \`${partOf}\`, not counted`
          : 'bookkeeping' in spec
            ? 'bookkeeping, not counted'
            : '`total` only';
      expect(rows.get(name), name).toContain(expected);
    }
  });
});
