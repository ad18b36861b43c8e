// lanes: sqlite postgres main-thread-reads
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { feedEvents } from '../../helpers/histories.ts';

const t = useTestServer();
let client: TestClient;
let master: TestUser;
let admin: TestUser;
let sales: TestUser;
let sales2: TestUser;
let outsider: TestUser;
let appId: string;

const CUSTOMER_FIELDS = [
  'id',
  'appId',
  'name',
  'headportraitUrl',
  'company',
  'title',
  'phone',
  'email',
  'svcUserId',
  'groupId',
  'sex',
  'ageState',
  'fixedPhone',
  'industry',
  'province',
  'city',
  'county',
  'address',
  'intentionality',
  'grade',
  'leadSource',
  'createWay',
  'platform',
  'from',
  'utmMedium',
  'utmCampaign',
  'utmContent',
  'buyedKeyword',
  'searchKeyword',
  'promoterId',
  'fromContentTitle',
  'fromContentLink',
  'fromProvince',
  'fromCity',
  'getWay',
  'source',
  'allocationData',
  'status',
  'whetherMerge',
  'mergedCustomerId',
  'createdAt',
  'updatedAt',
].sort();

const base = () => `/api/v1.7/app/${appId}`;
const createAs = (u: TestUser, body: Record<string, unknown>, form = true) =>
  t.server.api.post(`${base()}/member/${u.id}/customers`, body, { token: u.token, form });
async function created(u: TestUser, body: Record<string, unknown>) {
  const res = await createAs(u, body);
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as Record<string, unknown> & { id: string };
}

beforeAll(async () => {
  client = await createClient(t.server);
  [master, admin, sales, sales2, outsider] = (await Promise.all([0, 1, 2, 3, 4].map(() => activeUser(t.server, client)))) as [
    TestUser,
    TestUser,
    TestUser,
    TestUser,
    TestUser,
  ];
  appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Customers' }, { token: master.token })).json().data.appId;
  await t.server.api.post(`${base()}/members`, { svc_user_id: admin.id, role: 'Admin' }, { token: master.token });
  await t.server.api.post(`${base()}/members`, { svc_user_id: sales.id }, { token: master.token });
  await t.server.api.post(`${base()}/members`, { svc_user_id: sales2.id }, { token: master.token });
});

describe('metadata', () => {
  it('every project gets the default metadata with every documented field', async () => {
    const res = await t.server.api.get('/api/v1.7/metadata/customer', { token: sales.token, query: { app_id: appId } });
    const items = res.json().data as Record<string, unknown>[];
    expect(items.map((i) => i.name)).toEqual([
      'name',
      'phone',
      'fixedPhone',
      'email',
      'title',
      'company',
      'province',
      'city',
      'county',
      'address',
      'sex',
      'ageState',
      'industry',
      'intentionality',
      'grade',
      'leadSource',
      'groupId',
      'svcUserId',
      'promoterId',
      'createWay',
      'platform',
      'from',
      'utmMedium',
      'utmCampaign',
      'utmContent',
      'buyedKeyword',
      'searchKeyword',
      'fromContentTitle',
      'fromContentLink',
      'fromProvince',
      'fromCity',
      'getWay',
      'source',
    ]);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(
        [
          'appId',
          'name',
          'type',
          'title',
          'isExt',
          'unique',
          'required',
          'visiable',
          'index',
          'defaultValue',
          'optionValues',
          'readonly',
        ].sort(),
      );
    }
    const byName = Object.fromEntries(items.map((i) => [i.name, i]));
    expect(byName.name).toMatchObject({ type: 'text', title: '姓名', required: true, readonly: 0, visiable: true, index: 0, appId });
    expect(byName.sex).toMatchObject({ type: 'option', defaultValue: '2' });
    expect(JSON.parse(String(byName.grade?.optionValues))).toEqual([
      { value: '1', label: 'A（重点客户）' },
      { value: '2', label: 'B（普通客户）' },
      { value: '3', label: 'C（非优先客户）' },
    ]);
    expect(JSON.parse(String(byName.industry?.optionValues)).map((o: { value: string }) => o.value)).toContain('高科技');
    expect(byName.utmMedium).toMatchObject({ readonly: 1, visiable: false });
    expect(byName.createWay).toMatchObject({ readonly: 1, visiable: true });
    expect(byName.phone?.optionValues).toBeNull();
  });

  it('needs app_id and membership', async () => {
    expect((await t.server.api.get('/api/v1.7/metadata/customer', { token: sales.token })).json()).toMatchObject({
      status: 0,
      code: 'Bad Request',
    });
    expect((await t.server.api.get('/api/v1.7/metadata/customer', { token: outsider.token, query: { app_id: appId } })).statusCode).toBe(
      403,
    );
  });
});

describe('create, detail, edit', () => {
  it('creates from form fields with every field and documented types', async () => {
    const c = await created(sales, {
      name: 'Li Lei',
      sex: '1',
      age_state: '3',
      phone: '13912345678',
      fixed_phone: '010-88886666',
      email: 'li.lei@example.com',
      title: 'CTO',
      company: 'Acme',
      province: 'Zhejiang',
      city: 'Hangzhou',
      county: 'Xihu',
      address: '1 Road',
      intentionality: '3',
      grade: '1',
      lead_source: '会员信息',
      platform: 'pc_web',
      from: 'google',
      utm_medium: 'cpc',
      utm_campaign: 'spring',
      utm_content: 'ad1',
      buyed_keyword: 'crm',
      search_keyword: 'best crm',
      from_content_title: 'Landing',
      from_content_link: 'https://example.com/l',
      from_province: 'Beijing',
      from_city: 'Beijing',
      get_way: '1',
      source: '{"k":1}',
      deal_user_id: 'visitor-1',
      industry: '高科技',
    });
    expect(Object.keys(c).sort()).toEqual(CUSTOMER_FIELDS);
    expect(c).toMatchObject({
      appId,
      name: 'Li Lei',
      sex: 1,
      ageState: 3,
      svcUserId: String(sales.id),
      fixedPhone: '010-88886666',
      intentionality: 3,
      grade: 1,
      leadSource: '会员信息',
      createWay: 6,
      platform: 'pc_web',
      from: 'google',
      getWay: 1,
      industry: '高科技',
      status: 1,
      whetherMerge: 0,
      mergedCustomerId: '',
      allocationData: { allocationSvcUserId: null },
      groupId: null,
    });
    expect(c.createdAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const detail = await t.server.api.get(`/api/v1.7/customer/${c.id}/detail`, { token: sales.token });
    // The detail adds the engagement score (docs/scoring.md): none yet.
    expect(detail.json()).toEqual({ status: 1, data: { ...c, score: 0, scoreReasons: [] } });
  });

  it('accepts a JSON body and camelCase names, and applies metadata defaults', async () => {
    const res = await createAs(
      sales,
      { name: 'Json', ageState: 1, fixedPhone: '0571-1234567', leadSource: '其他', phone: 13811112222 },
      false,
    );
    expect(res.json().data).toMatchObject({
      name: 'Json',
      ageState: 1,
      fixedPhone: '0571-1234567',
      leadSource: '其他',
      phone: '13811112222',
      sex: 2,
    });
    const defaults = await created(sales, { name: 'Defaults' });
    expect(defaults).toMatchObject({ sex: 2, ageState: -1, createWay: 6 });
  });

  it.each([
    [{}, 'name_required'],
    [{ name: '   ' }, 'name_required'],
    [{ name: 'x', phone: '12ab' }, 'phone_invalid'],
    [{ name: 'x', fixed_phone: 'call me' }, 'fixedPhone_invalid'],
    [{ name: 'x', email: 'nope' }, 'email_invalid'],
    [{ name: 'x', sex: '5' }, 'sex_invalid'],
    [{ name: 'x', age_state: '9' }, 'ageState_invalid'],
    [{ name: 'x', grade: 'A' }, 'grade_invalid'],
    [{ name: 'x', intentionality: '4' }, 'intentionality_invalid'],
    [{ name: 'x', lead_source: 'TV' }, 'leadSource_invalid'],
    [{ name: 'x', industry: 'Mining' }, 'industry_invalid'],
    [{ name: 'x', create_way: '10' }, 'createWay_invalid'],
    [{ name: 'x', platform: 'fax' }, 'platform_invalid'],
    [{ name: 'x', get_way: '2' }, 'getWay_invalid'],
    [{ name: 'x', group_id: 'no-such-group' }, 'groupId_invalid'],
    [{ name: 'x', promoter_id: '99999999' }, 'promoterId_invalid'],
    [{ name: 'n'.repeat(256) }, 'name_invalid'],
    [{ phone: 'bad', name: '' }, 'name_required'],
  ] as [Record<string, unknown>, string][])('refuses %j with %s', async (body, code) => {
    const res = await createAs(sales, body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 0, code, msg: expect.any(String) });
  });

  it('uses the first failing attribute in metadata order', async () => {
    const res = await createAs(sales, { email: 'bad', phone: 'bad', name: 'ok' });
    expect(res.json().code).toBe('phone_invalid');
  });

  it('a failed create writes nothing: no customer, behaviour record or outbox row', async () => {
    const db = t.server.ctx.database.db;
    const count = async () => ({
      customers: (
        await db
          .selectFrom('customers')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('app_id', '=', appId)
          .executeTakeFirstOrThrow()
      ).n,
      behaviour: (
        await db
          .selectFrom('behaviour_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('app_id', '=', appId)
          .executeTakeFirstOrThrow()
      ).n,
      outbox: (
        await db
          .selectFrom('outbox')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('app_id', '=', appId)
          .executeTakeFirstOrThrow()
      ).n,
    });
    const before = await count();
    await createAs(sales, { name: 'x', email: 'broken' });
    expect(await count()).toEqual(before);
  });

  it('a create writes its create behaviour record and Customer + BehaviourLog events in the same transaction', async () => {
    const c = await created(sales, { name: 'Outboxed' });
    const db = t.server.ctx.database.db;
    const behaviour = await db
      .selectFrom('behaviour_logs')
      .selectAll()
      .where('app_id', '=', appId)
      .where('customer_id', '=', c.id)
      .execute();
    expect(behaviour).toHaveLength(1);
    expect(behaviour[0]).toMatchObject({ action: 'create', user_type: 1, app_id: appId, svc_user_id: String(sales.id) });
    expect(JSON.parse(String(behaviour[0]?.content))).toEqual(c);
    // Read as a consumer reads them: through the pull feed.
    const events = (await feedEvents(t.server, appId, master.token)).filter((e) => [c.id, behaviour[0]?.id].includes(e.domainId));
    expect(events.map((e) => `${e.domainType}:${e.event_type}`)).toEqual(['Customer:create', 'BehaviourLog:create']);
    const customerEvent = events.find((e) => e.domainType === 'Customer');
    expect(customerEvent?.body).toEqual(c);
    const overview = await t.server.api.get(`/api/v1.7/customer/${c.id}/overview`, { token: sales.token });
    expect(overview.json().data.total).toBe(0); // a creation is the team's bookkeeping, not the customer's activity
    const list = await t.server.api.get(`${base()}/member/customer/${c.id}/behaviour`, { token: sales.token });
    expect(list.json().data.map((b: { action: string }) => b.action)).toEqual(['create']);
    const behaviourEvent = events.find((e) => e.domainType === 'BehaviourLog')?.body;
    expect(behaviourEvent).toMatchObject({ customerId: c.id, action: 'create', userType: 1, appId, customerName: 'Outboxed' });
    expect(behaviourEvent?.content).toBe(behaviour[0]?.content);
  });

  it('owner: the acting member by default; Master/Admin may assign to another member, Sales may not', async () => {
    const byAdmin = await created(admin, { name: 'Assigned', svcUserId: String(sales2.id) });
    expect(byAdmin.svcUserId).toBe(String(sales2.id));
    expect(byAdmin.allocationData).toEqual({ allocationSvcUserId: String(sales2.id) });
    const bySales = await createAs(sales, { name: 'Nope', svcUserId: String(sales2.id) });
    expect(bySales.statusCode).toBe(403);
    const notMember = await createAs(admin, { name: 'Nope', svcUserId: String(outsider.id) });
    expect(notMember.json().code).toBe('svcUserId_invalid');
    const actingForOther = await t.server.api.post(`${base()}/member/${sales2.id}/customers`, { name: 'x' }, { token: sales.token });
    expect(actingForOther.statusCode).toBe(403);
    const masterActing = await t.server.api.post(`${base()}/member/${sales2.id}/customers`, { name: 'For S2' }, { token: master.token });
    expect(masterActing.json().data.svcUserId).toBe(String(sales2.id));
  });

  it('edit: validates, refuses readonly fields, writes an update event', async () => {
    const c = await created(sales, { name: 'Editable', phone: '13700000001' });
    const url = `${base()}/member/${sales.id}/customer/${c.id}`;
    const ok = await t.server.api.put(url, { title: 'VP', grade: 2 }, { token: sales.token });
    expect(ok.json().data).toMatchObject({ id: c.id, title: 'VP', grade: 2, name: 'Editable', phone: '13700000001' });
    expect((await t.server.api.put(url, { platform: 'app' }, { token: sales.token })).json().code).toBe('platform_readonly');
    expect((await t.server.api.put(url, { create_way: '7' }, { token: sales.token, form: true })).json().code).toBe('createWay_readonly');
    expect((await t.server.api.put(url, { name: '' }, { token: sales.token })).json().code).toBe('name_required');
    expect((await t.server.api.put(url, { email: 'x' }, { token: sales.token })).json().code).toBe('email_invalid');
    const events = await t.server.ctx.database.db
      .selectFrom('outbox')
      .select('event_type')
      .where('app_id', '=', appId)
      .where('domain_id', '=', c.id)
      .execute();
    expect(events.map((e) => e.event_type).sort()).toEqual(['create', 'update']);
  });

  it('whetherMerge is 1 when another live customer of the same owner shares the phone or e-mail', async () => {
    const a = await created(sales, { name: 'Twin A', phone: '13600000001' });
    expect(a.whetherMerge).toBe(0);
    const b = await created(sales, { name: 'Twin B', phone: '13600000001' });
    expect(b.whetherMerge).toBe(1);
    const other = await created(sales2, { name: 'Other owner', phone: '13600000001' });
    expect(other.whetherMerge).toBe(0);
    const e1 = await created(sales, { name: 'Mail A', email: 'Twin@Example.com' });
    const e2 = await created(sales, { name: 'Mail B', email: 'twin@example.COM' });
    expect(e1.whetherMerge).toBe(0);
    expect(e2.whetherMerge).toBe(1);
    const detailA = await t.server.api.get(`/api/v1.7/customer/${a.id}/detail`, { token: sales.token });
    expect(detailA.json().data.whetherMerge).toBe(1);

    // Lists and search compute it in their own statement: the same answers there.
    const merges = async () => {
      const search = await t.server.api.get(`${base()}/customer/appSearch`, { token: admin.token, query: { condition: '13600000001' } });
      const list = await t.server.api.get(`${base()}/member/${sales.id}/customers`, { token: sales.token, query: { count: 100 } });
      const shown = (res: typeof list) =>
        Object.fromEntries((res.json().data as { id: string; whetherMerge: number }[]).map((c) => [c.id, c.whetherMerge]));
      return { search: shown(search), list: shown(list) };
    };
    const before = await merges();
    expect(before.search).toEqual({ [a.id]: 1, [b.id]: 1, [other.id]: 0 });
    expect(before.list).toMatchObject({ [a.id]: 1, [b.id]: 1, [e1.id]: 1, [e2.id]: 1 });
    // A deleted twin no longer counts.
    await t.server.api.delete(`${base()}/member/${sales.id}/customer/${b.id}`, { token: sales.token });
    const after = await merges();
    expect(after.search).toEqual({ [a.id]: 0, [other.id]: 0 });
    expect(after.list).toMatchObject({ [a.id]: 0, [e1.id]: 1 });
  });
});

describe('visibility', () => {
  it('Sales see and change only their own customers; outsiders get nothing', async () => {
    const mine = await created(sales, { name: 'Mine', phone: '13500000001' });
    const theirs = await created(sales2, { name: 'Theirs', phone: '13500000002' });
    const detail = await t.server.api.get(`/api/v1.7/customer/${theirs.id}/detail`, { token: sales.token });
    expect(detail.json()).toEqual({ status: 0, code: 'customer_not_found', msg: expect.any(String) });
    const missing = await t.server.api.get('/api/v1.7/customer/no-such-id/detail', { token: sales.token });
    expect(missing.json()).toEqual(detail.json());
    const outsiderDetail = await t.server.api.get(`/api/v1.7/customer/${mine.id}/detail`, { token: outsider.token });
    expect(outsiderDetail.json().code).toBe('customer_not_found');
    const edit = await t.server.api.put(`${base()}/member/${sales.id}/customer/${theirs.id}`, { title: 'x' }, { token: sales.token });
    expect(edit.json().code).toBe('customer_not_found');
    const search = await t.server.api.get(`${base()}/customer/appSearch`, { token: sales.token, query: { condition: '13500000002' } });
    expect(search.json().data).toEqual([]);
    const adminSearch = await t.server.api.get(`${base()}/customer/appSearch`, { token: admin.token, query: { condition: '13500000002' } });
    expect(adminSearch.json().data.map((c: { id: string }) => c.id)).toEqual([theirs.id]);
    const listOther = await t.server.api.get(`${base()}/member/${sales2.id}/customers`, { token: sales.token });
    expect(listOther.statusCode).toBe(403);
    const listAll = await t.server.api.get(`${base()}/member/all/customers`, { token: sales.token, query: { count: 100 } });
    expect(listAll.json().data.every((c: { svcUserId: string }) => c.svcUserId === String(sales.id))).toBe(true);
    const outsiderList = await t.server.api.get(`${base()}/member/all/customers`, { token: outsider.token });
    expect(outsiderList.statusCode).toBe(403);
    const transfer = await t.server.api.post(
      `${base()}/customer/batch-app-member-transfers`,
      { datas: JSON.stringify([{ customerId: theirs.id }]), target_svc_userid: sales.id },
      { token: sales.token, form: true },
    );
    expect(transfer.json().code).toBe('customer_not_found');
  });
});

describe('list and search', () => {
  it('orders by updatedAt desc with id tie-break; pages neither repeat nor skip when updatedAt ties', async () => {
    const u = await activeUser(t.server, client);
    await t.server.api.post(`${base()}/members`, { svc_user_id: u.id }, { token: master.token });
    const db = t.server.ctx.database.db;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await created(u, { name: `Tie ${i}` })).id);
    await db.updateTable('customers').set({ updated_at: 1_700_000_000_000 }).where('app_id', '=', appId).where('id', 'in', ids).execute();
    const seen: string[] = [];
    for (let start = 0; start < 7; start += 3) {
      const res = await t.server.api.get(`${base()}/member/${u.id}/customers`, { token: u.token, query: { start_index: start, count: 3 } });
      seen.push(...res.json().data.map((c: { id: string }) => c.id));
    }
    expect(seen).toEqual([...ids].sort().reverse());
    const item = (await t.server.api.get(`${base()}/member/${u.id}/customers`, { token: u.token, query: { count: 1 } })).json().data[0];
    expect(Object.keys(item).sort()).toEqual(
      [...CUSTOMER_FIELDS, 'isNew', 'groupName', 'newCount', 'lastActivityAt', 'score', 'scoreReasons'].sort(),
    );
    expect(item).toMatchObject({ isNew: 1, groupName: '', newCount: 1 });
  });

  it('caps count at 100 and answers Bad Request for bad paging', async () => {
    const ok = await t.server.api.get(`${base()}/member/all/customers`, { token: master.token, query: { count: 100000 } });
    expect(ok.json().status).toBe(1);
    expect(ok.json().data.length).toBeLessThanOrEqual(100);
    for (const q of [{ start_index: -1 }, { count: 0 }, { count: 'x' }, { start_index: '0x10' }] as Record<string, string | number>[]) {
      const res = await t.server.api.get(`${base()}/member/all/customers`, { token: master.token, query: q });
      expect(res.json()).toMatchObject({ status: 0, code: 'Bad Request' });
    }
    const badPath = await t.server.api.get(`${base()}/member/everyone/customers`, { token: master.token });
    expect(badPath.json().code).toBe('Bad Request');
  });

  it('searches by exact phone and by e-mail in any case; injection-shaped input is just text', async () => {
    const c = await created(sales, { name: 'Findable', phone: '13412341234', email: 'Find.Me@Example.com' });
    const byPhone = await t.server.api.get(`${base()}/customer/appSearch`, { token: sales.token, query: { condition: '13412341234' } });
    expect(byPhone.json().data.map((x: { id: string }) => x.id)).toEqual([c.id]);
    const partial = await t.server.api.get(`${base()}/customer/appSearch`, { token: sales.token, query: { condition: '1341234' } });
    expect(partial.json().data).toEqual([]);
    const byEmail = await t.server.api.get(`${base()}/customer/appSearch`, {
      token: sales.token,
      query: { condition: 'FIND.me@example.COM' },
    });
    expect(byEmail.json().data.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect(byEmail.json().data[0]).toHaveProperty('groupName');
    for (const condition of ["' OR '1'='1", "x'); DROP TABLE customers; --", '%', '_@_']) {
      const res = await t.server.api.get(`${base()}/customer/appSearch`, { token: master.token, query: { condition } });
      expect(res.json()).toEqual({ status: 1, data: [] });
    }
    const missing = await t.server.api.get(`${base()}/customer/appSearch`, { token: sales.token });
    expect(missing.json()).toMatchObject({ status: 0, code: 'Bad Request', msg: expect.stringContaining('condition') });
  });
});

describe('groups and transfers', () => {
  it('groups: create, list with counts; group transfer all-or-nothing', async () => {
    const g1 = (await t.server.api.post(`${base()}/customer-groups`, { name: 'Hot' }, { token: sales.token })).json().data;
    const g2 = (await t.server.api.post(`${base()}/customer-groups`, { name: 'Cold' }, { token: sales.token, form: true })).json().data;
    expect(g1).toEqual({ id: expect.any(String), name: 'Hot', customerCount: 0, createdAt: expect.any(String) });
    const a = await created(sales, { name: 'Grouped A', group_id: g1.id });
    const b = await created(sales, { name: 'Grouped B', groupId: g1.id });
    expect(a.groupId).toBe(g1.id);
    const list = await t.server.api.get(`${base()}/customer-groups`, { token: sales.token, query: { svc_user_id: sales.id } });
    expect(list.json().data).toEqual([
      { ...g1, customerCount: 2 },
      { ...g2, customerCount: 0 },
    ]);
    const listed = (await t.server.api.get(`${base()}/member/${sales.id}/customers`, { token: sales.token, query: { count: 100 } })).json()
      .data;
    expect(listed.find((c: { id: string }) => c.id === a.id).groupName).toBe('Hot');

    const foreignGroup = (await t.server.api.post(`${base()}/customer-groups`, { name: 'Theirs' }, { token: sales2.token })).json().data;
    const bad = await t.server.api.post(
      `${base()}/customer/group-transfers`,
      { source_group_id: g1.id, target_group_id: foreignGroup.id, customer_ids: `${a.id},${b.id}` },
      { token: sales.token, form: true },
    );
    expect(bad.json().code).toBe('group_not_found');
    const oneBad = await t.server.api.post(
      `${base()}/customer/group-transfers`,
      { source_group_id: g1.id, target_group_id: g2.id, customer_ids: `${a.id},missing-id` },
      { token: sales.token, form: true },
    );
    expect(oneBad.json().code).toBe('customer_not_found');
    expect((await t.server.api.get(`/api/v1.7/customer/${a.id}/detail`, { token: sales.token })).json().data.groupId).toBe(g1.id);
    const good = await t.server.api.post(
      `${base()}/customer/group-transfers`,
      { source_group_id: g1.id, target_group_id: g2.id, customer_ids: `${a.id},${b.id}` },
      { token: sales.token, form: true },
    );
    expect(good.json()).toEqual({ status: 1, data: true });
    const after = await t.server.api.get(`${base()}/customer-groups`, { token: sales.token });
    expect(after.json().data.map((g: { customerCount: number }) => g.customerCount)).toEqual([0, 2]);
    const otherSalesGroups = await t.server.api.get(`${base()}/customer-groups`, { token: sales.token, query: { svc_user_id: sales2.id } });
    expect(otherSalesGroups.statusCode).toBe(403);
  });

  it('owner transfer is all-or-nothing, clears the group, sets allocation and isNew; the owner’s detail view clears isNew', async () => {
    const g = (await t.server.api.post(`${base()}/customer-groups`, { name: 'Transfer' }, { token: sales.token })).json().data;
    const a = await created(sales, { name: 'Move A', group_id: g.id });
    const b = await created(sales, { name: 'Move B' });
    const datas = [
      { customerId: a.id, srouceGroupId: g.id, srouceSvcUserId: String(sales.id) },
      { customerId: b.id, srouceGroupId: '', srouceSvcUserId: String(sales.id) },
    ];
    const withBad = await t.server.api.post(
      `${base()}/customer/batch-app-member-transfers`,
      {
        datas: JSON.stringify([...datas, { customerId: 'missing', srouceGroupId: '', srouceSvcUserId: String(sales.id) }]),
        target_svc_userid: sales2.id,
      },
      { token: admin.token, form: true },
    );
    expect(withBad.json().code).toBe('customer_not_found');
    expect((await t.server.api.get(`/api/v1.7/customer/${a.id}/detail`, { token: admin.token })).json().data.svcUserId).toBe(
      String(sales.id),
    );
    const wrongSource = await t.server.api.post(
      `${base()}/customer/batch-app-member-transfers`,
      { datas: [{ customerId: a.id, srouceGroupId: g.id, srouceSvcUserId: String(sales2.id) }], target_svc_userid: sales2.id },
      { token: admin.token },
    );
    expect(wrongSource.json().code).toBe('srouceSvcUserId_mismatch');
    const badJson = await t.server.api.post(
      `${base()}/customer/batch-app-member-transfers`,
      { datas: '[{', target_svc_userid: sales2.id },
      { token: admin.token, form: true },
    );
    expect(badJson.json().code).toBe('Bad Request');
    const toOutsider = await t.server.api.post(
      `${base()}/customer/batch-app-member-transfers`,
      { datas, target_svc_userid: outsider.id },
      { token: admin.token },
    );
    expect(toOutsider.json().code).toBe('target_svc_userid_invalid');

    // The owner looks at A first, so isNew is 0 before the transfer.
    await t.server.api.get(`/api/v1.7/customer/${a.id}/detail`, { token: sales.token });
    const ok = await t.server.api.post(
      `${base()}/customer/batch-app-member-transfers`,
      { datas: JSON.stringify(datas), target_svc_userid: sales2.id },
      { token: admin.token, form: true },
    );
    expect(ok.json()).toEqual({ status: 1, data: true });
    const listed = (
      await t.server.api.get(`${base()}/member/${sales2.id}/customers`, { token: sales2.token, query: { count: 100 } })
    ).json().data;
    const movedA = listed.find((c: { id: string }) => c.id === a.id);
    expect(movedA).toMatchObject({
      svcUserId: String(sales2.id),
      groupId: null,
      isNew: 1,
      allocationData: { allocationSvcUserId: String(sales2.id) },
    });
    expect(movedA.newCount).toBeGreaterThanOrEqual(1);
    // Someone else's view does not clear it; the owner's does.
    await t.server.api.get(`/api/v1.7/customer/${a.id}/detail`, { token: admin.token });
    expect(
      (await t.server.api.get(`${base()}/member/${sales2.id}/customers`, { token: sales2.token, query: { count: 100 } }))
        .json()
        .data.find((c: { id: string }) => c.id === a.id).isNew,
    ).toBe(1);
    await t.server.api.get(`/api/v1.7/customer/${a.id}/detail`, { token: sales2.token });
    const afterView = (await t.server.api.get(`${base()}/member/${sales2.id}/customers`, { token: sales2.token, query: { count: 100 } }))
      .json()
      .data.find((c: { id: string }) => c.id === a.id);
    expect(afterView).toMatchObject({ isNew: 0, newCount: 0 });
    expect((await t.server.api.get(`/api/v1.7/customer/${a.id}/detail`, { token: sales.token })).json().code).toBe('customer_not_found');
    const events = await t.server.ctx.database.db
      .selectFrom('outbox')
      .select('event_type')
      .where('app_id', '=', appId)
      .where('domain_id', '=', a.id)
      .execute();
    expect(events.map((e) => e.event_type).sort()).toEqual(['create', 'update']);
  });
});

describe('delete', () => {
  it('soft-deletes: gone from lists and search, detail answers status 0, a delete event is written', async () => {
    const c = await created(sales, { name: 'Doomed', phone: '13300000009' });
    const del = await t.server.api.delete(`${base()}/member/${sales.id}/customer/${c.id}`, { token: sales.token });
    expect(del.json()).toEqual({ status: 1, data: true });
    const detail = await t.server.api.get(`/api/v1.7/customer/${c.id}/detail`, { token: sales.token });
    expect(detail.json().data.status).toBe(0);
    const search = await t.server.api.get(`${base()}/customer/appSearch`, { token: sales.token, query: { condition: '13300000009' } });
    expect(search.json().data).toEqual([]);
    const list = (await t.server.api.get(`${base()}/member/all/customers`, { token: sales.token, query: { count: 100 } })).json().data;
    expect(list.find((x: { id: string }) => x.id === c.id)).toBeUndefined();
    const again = await t.server.api.delete(`${base()}/member/${sales.id}/customer/${c.id}`, { token: sales.token });
    expect(again.json().code).toBe('customer_not_found');
    const events = await t.server.ctx.database.db
      .selectFrom('outbox')
      .select('event_type')
      .where('app_id', '=', appId)
      .where('domain_id', '=', c.id)
      .execute();
    expect(events.map((e) => e.event_type).sort()).toEqual(['create', 'delete']);
    const bySales2 = await t.server.api.delete(`${base()}/member/${sales2.id}/customer/${c.id}`, { token: sales2.token });
    expect(bySales2.json().code).toBe('customer_not_found');
  });
});
