// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, HOUR, ago, event, feedEvents, historyProject, ingest } from '../../helpers/histories.ts';
import { countsAsActivity } from '../../../src/modules/behaviour/actions.ts';

const t = useTestServer();
let p: HistoryProject;

const base = () => `/api/v1.7/app/${p.appId}`;
type Customer = Record<string, unknown> & { id: string };

async function create(u: TestUser, body: Record<string, unknown>): Promise<Customer> {
  const res = await t.server.api.post(`${base()}/member/${u.id}/customers`, body, { token: u.token, form: true });
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as Customer;
}
const merge = (u: TestUser, body: Record<string, unknown>, actingId: number = u.id) =>
  t.server.api.post(`${base()}/member/${actingId}/customer/merge`, body, { token: u.token, form: true });
const detail = async (id: string, u: TestUser = p.master) =>
  (await t.server.api.get(`/api/v1.7/customer/${id}/detail`, { token: u.token })).json();
const overview = async (id: string, u: TestUser = p.master) =>
  (await t.server.api.get(`/api/v1.7/customer/${id}/overview`, { token: u.token })).json().data as Record<string, unknown>;
const behaviour = async (id: string, u: TestUser = p.master) =>
  (await t.server.api.get(`${base()}/member/customer/${id}/behaviour`, { token: u.token, query: { count: 100 } })).json().data as {
    id: string;
    action: string;
  }[];
const list = async (u: TestUser = p.master) =>
  (await t.server.api.get(`${base()}/member/all/customers`, { token: u.token, query: { count: 100 } })).json().data as Customer[];
const duplicates = async (u: TestUser, by: string, who: string | number = 'all') =>
  (await t.server.api.get(`${base()}/member/${who}/customer/duplicates`, { token: u.token, query: { by } })).json();

/** Some history for a customer: two sms records, a call with its record, a link view record. */
async function history(customerId: string, tag: string) {
  const res = await ingest(t.server, p, [
    event('BehaviourLog', `${tag}-sms1`, { customerId, action: 'send_message', when: ago(2 * HOUR) }),
    event('BehaviourLog', `${tag}-sms2`, { customerId, action: 'send_message', when: ago(HOUR) }),
    event('Call', `${tag}-call`, {
      fromUserType: 2,
      fromUserId: String(p.sales.id),
      toUserType: 1,
      toUserId: customerId,
      callStatus: 1,
      duration: 30,
      callTime: ago(3 * HOUR),
    }),
    event('BehaviourLog', `${tag}-callrec`, {
      customerId,
      action: 'call',
      when: ago(3 * HOUR),
      content: JSON.stringify({ record_id: `${tag}-call` }),
    }),
  ]);
  expect(res.json().status, res.body).toBe(1);
}

/** Statements of the test name the project too (the PostgreSQL run checks every statement). */
const db = () => t.server.ctx.database.db;
async function rowsNaming(ids: string[]) {
  const b = await db().selectFrom('behaviour_logs').select('id').where('app_id', '=', p.appId).where('customer_id', 'in', ids).execute();
  const c = await db().selectFrom('calls').select('id').where('app_id', '=', p.appId).where('customer_id', 'in', ids).execute();
  const tt = await db()
    .selectFrom('behaviour_totals')
    .select('key')
    .where('app_id', '=', p.appId)
    .where('customer_id', 'in', ids)
    .execute();
  return b.length + c.length + tt.length;
}

beforeAll(async () => {
  p = await historyProject(t.server);
});

describe('duplicates and merge', () => {
  let a: Customer;
  let b: Customer;
  let c: Customer;
  let e: Customer;

  beforeAll(async () => {
    // a is the oldest: its source fields survive; b is the main customer.
    a = await create(p.sales, {
      name: 'Li Lei',
      phone: '13800000001',
      company: 'ACME',
      create_way: 2,
      from: 'baidu',
      utm_campaign: 'spring',
      title: 'CTO',
    });
    b = await create(p.sales, { name: 'Li Lei', phone: '13800000001', email: 'lilei@example.com' });
    c = await create(p.sales, { name: 'Lei Li', email: 'LILEI@example.com', company: 'ACME' });
    await create(p.sales2, { name: 'Other', phone: '13800000001' });
    e = await create(p.sales, { name: 'Li Lei', company: 'ACME', title: 'Namesake' });
    await history(a.id, 'a');
    await history(b.id, 'b');
    await history(c.id, 'c');
  });

  it('finds customers sharing a phone, an e-mail (any case) or a name and company, among those the caller sees', async () => {
    const byPhone = await duplicates(p.master, 'phone');
    expect(byPhone.status).toBe(1);
    const phoneSet = (byPhone.data as { by: string; value: string; customers: Customer[] }[]).find((s) => s.value === '13800000001');
    expect(phoneSet?.customers.map((x) => x.id)).toHaveLength(3);
    expect(phoneSet?.customers.slice(0, 2).map((x) => x.id)).toEqual([a.id, b.id]);
    // A Sales member sees their own customers only: the other member's twin is not in the set.
    const own = (await duplicates(p.sales, 'phone', p.sales.id)).data as { customers: Customer[] }[];
    expect(own.map((s) => s.customers.map((x) => x.id))).toEqual([[a.id, b.id]]);
    expect((await duplicates(p.sales, 'phone', 'all')).data).toEqual(own);
    const others = await t.server.api.get(`${base()}/member/${p.sales2.id}/customer/duplicates`, { token: p.sales.token });
    expect(others.statusCode).toBe(403);
    const byEmail = (await duplicates(p.sales, 'email')).data as { value: string; customers: Customer[] }[];
    expect(byEmail).toEqual([expect.objectContaining({ value: 'lilei@example.com' })]);
    expect(byEmail[0]?.customers.map((x) => x.id)).toEqual([b.id, c.id]);
    // Li Lei/ACME twice (a, e); Lei Li/ACME is another name.
    const byName = (await duplicates(p.sales, 'name_company')).data as { value: string; customers: Customer[] }[];
    expect(byName.map((s) => [s.value, s.customers.map((x) => x.id)])).toEqual([['Li Lei / ACME', [a.id, e.id]]]);
    expect((await duplicates(p.sales, 'nickname')).code).toBe('Bad Request');
    expect((await duplicates(p.sales2, 'email')).data).toEqual([]);
  });

  it('refuses bad input and other members’ customers without changing anything', async () => {
    // The main customer alone: nothing to merge into it.
    expect((await merge(p.sales, { main_customer_id: b.id, merge_user_ids: b.id })).json().code).toBe('merge_user_ids_invalid');
    expect((await merge(p.sales, { main_customer_id: b.id, merge_user_ids: `${a.id},${a.id}` })).json().code).toBe(
      'merge_user_ids_invalid',
    );
    expect((await merge(p.sales, { main_customer_id: b.id, merge_user_ids: '' })).json().code).toBe('merge_user_ids_invalid');
    expect((await merge(p.sales, { merge_user_ids: a.id })).json().code).toBe('Bad Request');
    // Sales: another member's customers do not exist for them; giving the survivor away is the managers'.
    expect((await merge(p.sales2, { main_customer_id: b.id, merge_user_ids: a.id })).json().code).toBe('customer_not_found');
    const away = await merge(p.sales, { main_customer_id: b.id, merge_user_ids: a.id, merge_target_id: String(p.sales2.id) });
    expect(away.statusCode).toBe(403);
    expect((await merge(p.sales, { main_customer_id: b.id, merge_user_ids: a.id }, p.sales2.id)).statusCode).toBe(403);
    expect((await merge(p.admin, { main_customer_id: b.id, merge_user_ids: a.id, merge_target_id: '999999' })).json().code).toBe(
      'merge_target_id_invalid',
    );
    // An override that does not validate: nothing of the merge happened.
    const bad = await merge(p.sales, { main_customer_id: b.id, merge_user_ids: a.id, phone: 'not a phone' });
    expect(bad.json().code).toBe('phone_invalid');
    expect((await detail(a.id)).data).toMatchObject({ status: 1, mergedCustomerId: '' });
    expect((await detail(b.id)).data).toMatchObject({ status: 1, createWay: 6 });
  });

  it('merges: status 2 and mergedCustomerId, source fields of the earliest, blanks filled, overrides applied, history counted', async () => {
    const before = await Promise.all([a, b, c].map((x) => overview(x.id)));
    const res = await merge(p.sales, { main_customer_id: b.id, merge_user_ids: `${a.id}, ${c.id}`, title: 'CEO' });
    expect(res.json().status, res.body).toBe(1);
    const survivor = res.json().data as Customer;
    expect(survivor).toMatchObject({
      id: b.id,
      status: 1,
      mergedCustomerId: '',
      whetherMerge: 0,
      name: 'Li Lei',
      phone: '13800000001',
      email: 'lilei@example.com',
      company: 'ACME',
      title: 'CEO',
      createWay: 2,
      from: 'baidu',
      utmCampaign: 'spring',
      createdAt: a.createdAt,
      svcUserId: String(p.sales.id),
    });
    for (const x of [a, c]) {
      const d = await detail(x.id, p.sales);
      expect(d.status).toBe(1);
      expect(d.data).toMatchObject({ id: x.id, status: 2, mergedCustomerId: b.id, whetherMerge: 0 });
    }
    // Gone from lists, search and whetherMerge.
    const ids = (await list(p.sales)).map((x) => x.id);
    expect(ids).toContain(b.id);
    expect(ids).not.toContain(a.id);
    expect(ids).not.toContain(c.id);
    const search = await t.server.api.get(`${base()}/customer/appSearch`, { token: p.sales.token, query: { condition: '13800000001' } });
    expect((search.json().data as Customer[]).map((x) => x.id)).toEqual([b.id]);
    expect((await list(p.sales)).find((x) => x.id === b.id)?.whetherMerge).toBe(0);
    // A merged customer cannot be merged again, nor edited.
    expect((await merge(p.sales, { main_customer_id: b.id, merge_user_ids: a.id })).json().code).toBe('customer_already_merged');
    expect((await merge(p.sales, { main_customer_id: a.id, merge_user_ids: b.id })).json().code).toBe('customer_already_merged');

    // The overview counts the activity of the three (the merge's own record is bookkeeping), before the move…
    const sum = (k: string) => before.reduce((n, o) => n + Number(o[k]), 0);
    const expected = { total: sum('total'), smsCount: sum('smsCount'), callCount: sum('callCount') };
    expect(await overview(b.id)).toMatchObject(expected);
    expect(await overview(b.id, p.sales)).toMatchObject(expected);
    const records = await behaviour(b.id);
    expect(records.filter((r) => countsAsActivity(r.action))).toHaveLength(expected.total);
    expect(records.filter((r) => r.action === 'customer_merged')).toHaveLength(1);
    expect(records.filter((r) => r.action === 'create')).toHaveLength(3);
    expect(await rowsNaming([a.id, c.id])).toBeGreaterThan(0);

    // …and after the background job moved the history to the survivor.
    await t.server.services.merges.runPending(0);
    expect(await rowsNaming([a.id, c.id])).toBe(0);
    expect(await overview(b.id)).toMatchObject(expected);
    expect((await behaviour(b.id)).map((r) => r.id).sort()).toEqual(records.map((r) => r.id).sort());
    const survivorRow = await db()
      .selectFrom('customers')
      .select('merge_pending')
      .where('app_id', '=', p.appId)
      .where('id', '=', b.id)
      .executeTakeFirst();
    expect(survivorRow?.merge_pending).toBe(0);
    // The calls' customer is the survivor.
    const calls = await t.server.api.get('/api/v1.7/calls', { token: p.master.token, query: { app_id: p.appId, count: 100 } });
    const mine = (calls.json().data as { id: string; toUserId: string; customer: { id: string } | null }[]).filter((x) =>
      ['a-call', 'b-call', 'c-call'].includes(x.id),
    );
    expect(mine).toHaveLength(3);
    for (const call of mine) {
      expect(call.toUserId).toBe(b.id);
      expect(call.customer?.id).toBe(b.id);
    }

    // The merge event carries the old bodies; the audit log names who merged what.
    const feed = await feedEvents(t.server, p.appId, p.master.token);
    const ev = feed.find((e) => e.event_type === 'merge');
    expect(ev).toMatchObject({ domainType: 'Customer', domainId: b.id });
    expect(ev?.body).toMatchObject({ id: b.id, title: 'CEO', mergedCustomerIds: [a.id, c.id], before: { id: b.id, createWay: 6 } });
    expect((ev?.body.mergedCustomers as Customer[]).map((x) => [x.id, x.status, x.title])).toEqual([
      [a.id, 1, 'CTO'],
      [c.id, 1, null],
    ]);
    const audit = await t.server.api.get(`${base()}/audit-log`, { token: p.master.token, query: { count: 100 } });
    expect(audit.json().data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'customer.merge', targetId: b.id, detail: expect.objectContaining({ merged: [a.id, c.id] }) }),
      ]),
    );
  });

  it('ingestion naming a merged customer lands on the survivor; a later merge re-points the earlier ones', async () => {
    const res = await ingest(t.server, p, [
      event('BehaviourLog', 'late-sms', { customerId: a.id, action: 'send_message', when: ago(60_000) }),
      event('Call', 'late-call', {
        fromUserType: 1,
        fromUserId: c.id,
        toUserType: 2,
        toUserId: String(p.sales.id),
        callStatus: 0,
        callTime: ago(60_000),
      }),
    ]);
    expect(res.json().status, res.body).toBe(1);
    expect((await behaviour(b.id)).map((r) => r.id)).toContain('late-sms');
    expect(await rowsNaming([a.id, c.id])).toBe(0);
    const call = await db().selectFrom('calls').selectAll().where('app_id', '=', p.appId).where('id', '=', 'late-call').executeTakeFirst();
    expect([call?.customer_id, call?.from_user_id]).toEqual([b.id, b.id]);

    // b merged into d (by an Admin, to another owner): a and c now name d.
    const d = await create(p.sales2, { name: 'Li Lei (2)', phone: '13900000002' });
    // The main customer listed among the merged ones too (as the original platform's clients send it): ignored.
    const again = await merge(p.admin, { main_customer_id: d.id, merge_user_ids: `${d.id},${b.id}`, merge_target_id: String(p.sales.id) });
    expect(again.json().status, again.body).toBe(1);
    expect(again.json().data).toMatchObject({ id: d.id, svcUserId: String(p.sales.id), createWay: 2, email: 'lilei@example.com' });
    for (const x of [a.id, b.id, c.id]) expect((await detail(x)).data).toMatchObject({ status: 2, mergedCustomerId: d.id });
    await t.server.services.merges.runPending(0);
    expect((await behaviour(d.id, p.sales)).map((r) => r.id)).toContain('late-sms');
    expect(await rowsNaming([a.id, b.id, c.id])).toBe(0);
  });
});

describe('custom fields', () => {
  it('the survivor takes the merged customers’ custom values: searchable and unique as its own', async () => {
    const field = await t.server.api.post(
      `${base()}/metadata/customer`,
      { name: 'contract', label: 'Contract', type: 'text', unique: true, searchable: true },
      { token: p.master.token },
    );
    expect(field.json().status, field.body).toBe(1);
    const keep = await create(p.sales, { name: 'Custom keep' });
    const gone = await create(p.sales, { name: 'Custom gone', contract: 'CT-0042' });
    const over = await create(p.sales, { name: 'Custom over' });
    const res = await merge(p.sales, { main_customer_id: keep.id, merge_user_ids: `${gone.id},${over.id}` });
    expect(res.json().status, res.body).toBe(1);
    expect(res.json().data.exts).toMatchObject({ contract: 'CT-0042' });
    const found = (
      await t.server.api.get(`${base()}/member/all/customers`, { token: p.master.token, query: { keyword: 'CT-0042' } })
    ).json().data as Customer[];
    expect(found.map((x) => x.id)).toEqual([keep.id]);
    // The value is the survivor's now: another customer cannot take it.
    const taken = await t.server.api.post(
      `${base()}/member/${p.sales.id}/customers`,
      { name: 'Copy', contract: 'CT-0042' },
      { token: p.sales.token, form: true },
    );
    expect(taken.json()).toMatchObject({ status: 0, code: 'contract_unique' });
  });
});

describe('concurrent merges', () => {
  it('overlapping merges in parallel: each customer merged once, into a live customer, nothing half-done', async () => {
    const xs: Customer[] = [];
    for (let i = 0; i < 8; i += 1) xs.push(await create(p.sales, { name: `Twin ${i}`, phone: `1370000000${i}` }));
    for (const x of xs.slice(0, 4)) await history(x.id, `twin-${x.id}`);
    const id = (i: number) => (xs[i] as Customer).id;
    // Every pair shares a customer with another: at most a few can win.
    const attempts: [number, number[]][] = [
      [0, [1, 2]],
      [2, [3, 4]],
      [4, [5, 0]],
      [1, [6, 7]],
      [7, [3, 5]],
      [6, [0, 4]],
    ];
    const answers = await Promise.all(
      attempts.map(([main, others]) =>
        merge(p.master, { main_customer_id: id(main), merge_user_ids: others.map(id).join(',') }).then((r) => r.json()),
      ),
    );
    for (const ans of answers) {
      if (ans.status !== 1) expect(['customer_already_merged', 'customer_not_found']).toContain(ans.code);
    }
    expect(answers.filter((x) => x.status === 1).length).toBeGreaterThan(0);
    const rows = await db()
      .selectFrom('customers')
      .select(['id', 'status', 'merged_customer_id'])
      .where('app_id', '=', p.appId)
      .where(
        'id',
        'in',
        xs.map((x) => x.id),
      )
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const won = attempts.filter((_, i) => answers[i]?.status === 1);
    // Exactly the winners' customers are merged, each into its winner's survivor (or where that one went since).
    const merged = new Set(won.flatMap(([, others]) => others.map(id)));
    for (const r of rows) {
      if (merged.has(r.id)) {
        expect(r.status).toBe(2);
        expect(byId.get(r.merged_customer_id as string)?.status).toBe(1);
      } else {
        expect(r.status).toBe(1);
        expect(r.merged_customer_id).toBeNull();
      }
    }
    const aliases = await db().selectFrom('customer_merges').selectAll().where('app_id', '=', p.appId).execute();
    for (const m of merged) {
      expect(aliases.filter((x) => x.merged_id === m).map((x) => x.survivor_id)).toEqual([byId.get(m)?.merged_customer_id]);
    }
    await t.server.services.merges.runPending(0);
    const loose = await db()
      .selectFrom('behaviour_logs')
      .select('id')
      .where('app_id', '=', p.appId)
      .where('customer_id', 'in', [...merged])
      .execute();
    expect(loose).toEqual([]);
  });
});
