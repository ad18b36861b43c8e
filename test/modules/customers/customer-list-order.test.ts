// lanes: sqlite postgres
/**
 * The customer list's orders, total and activity filter (docs/customers.md, "Order, total and
 * activity"), through HTTP: every order walks every customer exactly once in its order, from any
 * start index (page anchors per order); X-Total-Count counts what matches; the activity filter finds
 * customers with activity of a kind in a period, for the caller's customers only; ingestion keeps
 * the last activity; bad parameters get their documented codes.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { DAY, HOUR, type HistoryProject, event, historyProject, ingest } from '../../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;

type Item = { id: string; name: string | null; createdAt: string; updatedAt: string; lastActivityAt: string | null; svcUserId: string };

async function list(token: string, who: string, query: Record<string, string | number> = {}) {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/${who}/customers`, { token, query });
  const body = res.json() as { status: number; code?: string; data: Item[] };
  return { body, total: res.headers['x-total-count'], capped: res.headers['x-total-count-capped'], status: res.statusCode };
}

/** The whole list in pages of `count`, in the order asked. */
async function walk(token: string, who: string, query: Record<string, string>, count = 7): Promise<Item[]> {
  const out: Item[] = [];
  for (;;) {
    const { body } = await list(token, who, { ...query, start_index: out.length, count });
    expect(body.status).toBe(1);
    out.push(...body.data);
    if (body.data.length < count) return out;
  }
}

const NOW = Date.now();
const N = 45;
/** Names with ties, cases, blanks and none at all. */
const NAME = (i: number) => [`Zoë ${i % 4}`, `alice ${i % 5}`, `Bob`, null, '', `bob`, `Émile ${i}`][i % 7] ?? null;

beforeAll(async () => {
  p = await historyProject(t.server);
  // Customers written directly with chosen times: many share a created or updated millisecond, so
  // the id tie-break matters; a third are the Sales member's.
  await t.server.ctx.database.db
    .insertInto('customers')
    .values(
      Array.from({ length: N }, (_, i) => ({
        id: `lo-${String(i).padStart(2, '0')}`,
        app_id: p.appId,
        owner_id: i % 3 === 0 ? p.sales.id : p.master.id,
        name: NAME(i),
        status: 1,
        is_new: 1,
        created_at: NOW - 10 * DAY + (i % 6) * HOUR,
        updated_at: NOW - 5 * DAY + (i % 4) * HOUR,
      })),
    )
    .execute();
  // Activity through ingestion: a site visit for every fifth customer 2 days ago, a mail opened for
  // every seventh 20 days ago, a message sent to every third one 3 hours ago.
  const records = [];
  for (let i = 0; i < N; i++) {
    const id = `lo-${String(i).padStart(2, '0')}`;
    const when = (ms: number) => new Date(NOW - ms).toISOString().slice(0, 19).replace('T', ' ');
    if (i % 5 === 0)
      records.push(
        event('BehaviourLog', `v-${id}`, {
          customerId: id,
          action: 'access_site',
          when: when(2 * DAY),
          content: JSON.stringify({ web_access_log_id: `w-${id}` }),
        }),
      );
    if (i % 7 === 0) records.push(event('BehaviourLog', `m-${id}`, { customerId: id, action: 'mail_open', when: when(20 * DAY) }));
    if (i % 3 === 0) records.push(event('BehaviourLog', `s-${id}`, { customerId: id, action: 'send_message', when: when(3 * HOUR) }));
  }
  const res = await ingest(t.server, p, records);
  expect(res.json()).toMatchObject({ status: 1 });
});

/** The order key the API's items show, as the server compares them. */
const keyOf: Record<string, (c: Item) => string> = {
  updated: (c) => c.updatedAt,
  created: (c) => c.createdAt,
  name: (c) => (c.name ?? '').toLowerCase(),
  last_activity: (c) => c.lastActivityAt ?? '',
};

function expectOrdered(items: Item[], sort: string, dir: 'asc' | 'desc') {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1] as Item, items[i] as Item];
    const ka = keyOf[sort]?.(a) ?? '';
    const kb = keyOf[sort]?.(b) ?? '';
    // Names compare as the database does (lower() folds ASCII only): check ASCII names strictly.
    if (sort === 'name' && (/[^\x20-\x7e]/.test(ka) || /[^\x20-\x7e]/.test(kb))) continue;
    if (ka === kb) expect(dir === 'desc' ? a.id > b.id : a.id < b.id, `${a.id} before ${b.id}`).toBe(true);
    else expect(dir === 'desc' ? ka > kb : ka < kb, `${sort} ${dir}: ${ka} before ${kb}`).toBe(true);
  }
}

describe('orders', () => {
  const orders = ['updated', 'created', 'name', 'last_activity'].flatMap((sort) => [
    [sort, 'asc'],
    [sort, 'desc'],
  ]) as [string, 'asc' | 'desc'][];

  it.each(orders)('%s %s: every customer exactly once, in the order, the id breaking ties', async (sort, order) => {
    const all = await walk(p.master.token, 'all', { sort, order });
    expect(all.map((c) => c.id).sort()).toEqual(Array.from({ length: N }, (_, i) => `lo-${String(i).padStart(2, '0')}`));
    expectOrdered(all, sort, order);
    // One owner's list in the same order is the project's, filtered.
    const mine = await walk(p.sales.token, String(p.sales.id), { sort, order }, 4);
    expect(mine.map((c) => c.id)).toEqual(all.filter((c) => c.svcUserId === String(p.sales.id)).map((c) => c.id));
  });

  it('any start index in any order is the slice of one walk (pages from anchors)', async () => {
    const walks = new Map<string, string[]>();
    for (const [sort, order] of orders)
      walks.set(
        `${sort}:${order}`,
        (await walk(p.master.token, 'all', { sort, order }, 50)).map((c) => c.id),
      );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...orders),
        fc.integer({ min: 0, max: N + 2 }),
        fc.integer({ min: 1, max: 12 }),
        async ([sort, order], start, count) => {
          const { body } = await list(p.master.token, 'all', { sort, order, start_index: start, count });
          expect(body.data.map((c) => c.id)).toEqual(walks.get(`${sort}:${order}`)?.slice(start, start + count));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('defaults: updated newest first; the name A to Z', async () => {
    const plain = (await walk(p.master.token, 'all', {})).map((c) => c.id);
    expect(plain).toEqual((await walk(p.master.token, 'all', { sort: 'updated', order: 'desc' })).map((c) => c.id));
    const byName = (await walk(p.master.token, 'all', { sort: 'name' })).map((c) => c.id);
    expect(byName).toEqual((await walk(p.master.token, 'all', { sort: 'name', order: 'asc' })).map((c) => c.id));
  });

  it('a filtered list keeps the order', async () => {
    const found = await walk(p.master.token, 'all', { keyword: 'bob', sort: 'name', order: 'desc' }, 3);
    expect(found.length).toBeGreaterThan(0);
    for (const c of found) expect(c.name?.toLowerCase()).toBe('bob');
    expectOrdered(found, 'name', 'desc');
  });
});

describe('X-Total-Count', () => {
  it('counts every match whatever the page; Sales count their own', async () => {
    expect((await list(p.master.token, 'all', { count: 1 })).total).toBe(String(N));
    expect((await list(p.master.token, 'all', { start_index: 40, count: 100, sort: 'name' })).total).toBe(String(N));
    expect((await list(p.sales.token, String(p.sales.id))).total).toBe(String(N / 3));
    // A Sales member asking for everyone's gets their own (and their count).
    expect((await list(p.sales.token, 'all')).total).toBe(String(N / 3));
    const bob = await list(p.master.token, 'all', { keyword: 'bob', count: 1 });
    expect(bob.total).toBe(String((await walk(p.master.token, 'all', { keyword: 'bob' })).length));
    expect(bob.capped).toBeUndefined();
  });

  it('follows writes: a deleted customer leaves the count', async () => {
    const before = Number((await list(p.master.token, 'all')).total);
    const gone = await t.server.api.delete(`/api/v1.7/app/${p.appId}/member/${p.master.id}/customer/lo-44`, { token: p.master.token });
    expect(gone.json()).toMatchObject({ status: 1 });
    expect(Number((await list(p.master.token, 'all')).total)).toBe(before - 1);
    await t.server.ctx.database.db
      .updateTable('customers')
      .set({ status: 1 })
      .where('app_id', '=', p.appId)
      .where('id', '=', 'lo-44')
      .execute();
  });
});

describe('activity', () => {
  const ids = async (token: string, who: string, query: Record<string, string | number>) =>
    (await walk(token, who, Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), 50)).map((c) => c.id).sort();
  const expected = (pick: (i: number) => boolean, owner?: number) =>
    Array.from({ length: N }, (_, i) => i)
      .filter((i) => pick(i) && (owner === undefined || (i % 3 === 0 ? p.sales.id : p.master.id) === owner))
      .map((i) => `lo-${String(i).padStart(2, '0')}`)
      .sort();

  it('ingestion keeps each customer’s last activity: its latest record, bookkeeping aside', async () => {
    const all = await walk(p.master.token, 'all', {}, 50);
    const at = (id: string) => all.find((c) => c.id === id)?.lastActivityAt;
    expect(at('lo-03')).not.toBeNull(); // a message 3 hours ago
    expect(at('lo-01')).toBeNull(); // nothing
    // lo-00 had all three: the latest is the message.
    expect(at('lo-00')).toBe(at('lo-03'));
    // An older record does not move it back; a record dated in the future counts as stored.
    const late = new Date(NOW + 30 * DAY).toISOString().slice(0, 19).replace('T', ' ');
    const old = new Date(NOW - 40 * DAY).toISOString().slice(0, 19).replace('T', ' ');
    await ingest(t.server, p, [
      event('BehaviourLog', 'old-lo-03', { customerId: 'lo-03', action: 'send_message', when: old }),
      event('BehaviourLog', 'future-lo-01', { customerId: 'lo-01', action: 'send_message', when: late }),
    ]);
    const after = await walk(p.master.token, 'all', {}, 50);
    expect(after.find((c) => c.id === 'lo-03')?.lastActivityAt).toBe(at('lo-03'));
    const future = after.find((c) => c.id === 'lo-01')?.lastActivityAt ?? '';
    expect(future < late && future !== '').toBe(true);
    await t.server.ctx.database.db.deleteFrom('behaviour_logs').where('app_id', '=', p.appId).where('id', '=', 'future-lo-01').execute();
    await t.server.ctx.database.db
      .updateTable('customers')
      .set({ last_activity_at: 0 })
      .where('app_id', '=', p.appId)
      .where('id', '=', 'lo-01')
      .execute();
  });

  it('finds customers with a kind of activity in a period', async () => {
    expect(await ids(p.master.token, 'all', { activity: 'site_visit', period: '7d' })).toEqual(expected((i) => i % 5 === 0));
    expect(await ids(p.master.token, 'all', { activity: 'site_visit', period: '24h' })).toEqual([]);
    expect(await ids(p.master.token, 'all', { activity: 'mail_open', period: '30d' })).toEqual(expected((i) => i % 7 === 0));
    expect(await ids(p.master.token, 'all', { activity: 'mail_open', period: '7d' })).toEqual([]);
    expect(await ids(p.master.token, 'all', { activity: 'mail_open' })).toEqual(expected((i) => i % 7 === 0));
    expect(await ids(p.master.token, 'all', { activity: 'link_open', period: '366d' })).toEqual([]);
    const since = NOW - 3 * DAY;
    const until = NOW - DAY;
    expect(await ids(p.master.token, 'all', { activity: 'site_visit', since, until })).toEqual(expected((i) => i % 5 === 0));
    expect(await ids(p.master.token, 'all', { activity: 'site_visit', since: until })).toEqual([]);
  });

  it('any activity: since alone, or a closed period; the total counts them', async () => {
    const recent = expected((i) => i % 3 === 0 || i % 5 === 0);
    expect(await ids(p.master.token, 'all', { period: '7d' })).toEqual(recent);
    expect(await ids(p.master.token, 'all', { activity: 'any', since: NOW - 7 * DAY })).toEqual(recent);
    // Between 25 and 10 days ago: only the mails (every seventh); 3 days to 1 day ago: the visits.
    expect(await ids(p.master.token, 'all', { activity: 'any', since: NOW - 25 * DAY, until: NOW - 10 * DAY })).toEqual(
      expected((i) => i % 7 === 0),
    );
    expect(await ids(p.master.token, 'all', { activity: 'any', since: NOW - 3 * DAY, until: NOW - DAY })).toEqual(
      expected((i) => i % 5 === 0),
    );
    expect((await list(p.master.token, 'all', { period: '7d', count: 1 })).total).toBe(String(recent.length));
  });

  it('Sales see only their own customers’ activity', async () => {
    expect(await ids(p.sales.token, 'all', { activity: 'site_visit', period: '7d' })).toEqual(expected((i) => i % 5 === 0, p.sales.id));
    // Another member's list stays refused, filter or not.
    const other = await list(p.sales.token, String(p.master.id), { activity: 'mail_open' });
    expect(other.status).toBe(403);
  });

  it('sorts by last activity within the filter', async () => {
    const items = await walk(p.master.token, 'all', { period: '30d', sort: 'last_activity', order: 'desc' }, 5);
    expectOrdered(items, 'last_activity', 'desc');
    expect(items[0]?.lastActivityAt).toBe(
      (await list(p.master.token, 'all', { sort: 'last_activity', count: 1 })).body.data[0]?.lastActivityAt,
    );
  });
});

describe('bad parameters', () => {
  it.each([
    [{ sort: 'price' }, 'sort_invalid'],
    [{ sort: 'name', order: 'up' }, 'sort_invalid'],
    [{ activity: 'telepathy' }, 'activity_invalid'],
    [{ activity: 'any', period: 'week' }, 'period_invalid'],
    [{ period: '0d' }, 'period_invalid'],
    [{ period: '367d' }, 'period_invalid'],
    [{ period: '7d', since: 1 }, 'period_invalid'],
    [{ since: 2000, until: 1000 }, 'period_invalid'],
    [{ since: 'yesterday' }, 'Bad Request'],
    [{ until: -5 }, 'Bad Request'],
  ] as [Record<string, string | number>, string][])('%j is %s', async (query, code) => {
    const { body, status } = await list(p.master.token, 'all', query);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 0, code });
  });
});
