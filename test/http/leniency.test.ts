// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient } from '../helpers/fixtures.ts';
import { freshDatabase } from '../helpers/database.ts';
import { useTestServer } from '../helpers/harness.ts';
import { runCli } from '../helpers/process.ts';

/** What clients written for the original platform send, accepted as they meant it; what cannot be read, refused. */
const t = useTestServer({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' });
let client: TestClient;
let master: TestUser;
let sales: TestUser;
let appId: string;

type Json = Record<string, unknown>;
const base = () => `/api/v1.7/app/${appId}`;
const create = (body: unknown, u: TestUser = master, opts: { form?: boolean; headers?: Record<string, string> } = {}) =>
  t.server.api.post(`${base()}/member/${u.id}/customers`, body, { token: u.token, ...opts });
async function created(body: Json, u: TestUser = master): Promise<Json & { id: string }> {
  const res = await create(body, u);
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as Json & { id: string };
}
const edit = (id: string, body: unknown, opts: { form?: boolean; headers?: Record<string, string> } = {}) =>
  t.server.api.put(`${base()}/member/${master.id}/customer/${id}`, body, { token: master.token, ...opts });
const detail = async (id: string) =>
  (await t.server.api.get(`/api/v1.7/customer/${id}/detail`, { token: master.token })).json().data as Json;
const listIds = async (query: Record<string, string>) =>
  ((await t.server.api.get(`${base()}/member/all/customers`, { token: master.token, query })).json().data as Json[]).map((c) => c.id);

beforeAll(async () => {
  client = await createClient(t.server);
  [master, sales] = (await Promise.all([0, 1].map(() => activeUser(t.server, client)))) as [TestUser, TestUser];
  appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Leniency' }, { token: master.token })).json().data.appId;
  await t.server.api.post(`${base()}/members`, { svc_user_id: sales.id }, { token: master.token });
});

describe('a customer sent back as it was read', () => {
  it('is accepted, read-only attributes included; a changed read-only attribute is still refused', async () => {
    const c = await created({ name: 'Round trip', phone: '13800000001', grade: '2', platform: 'app', create_way: '4' });
    const read = await detail(c.id);
    expect(read).toMatchObject({ createWay: 4, platform: 'app' });
    const res = await edit(c.id, { ...read, company: 'Acme' });
    expect(res.json().status, res.body).toBe(1);
    expect(res.json().data).toMatchObject({ company: 'Acme', createWay: 4, platform: 'app', grade: 2, phone: '13800000001' });
    // The list item too (with its extras).
    const item = ((await t.server.api.get(`${base()}/member/all/customers`, { token: master.token })).json().data as Json[]).find(
      (x) => x.id === c.id,
    ) as Json;
    expect((await edit(c.id, item)).json().status).toBe(1);
    expect((await edit(c.id, { createWay: 7 })).json().code).toBe('createWay_readonly');
    expect((await edit(c.id, { create_way: '7' }, { form: true })).json().code).toBe('createWay_readonly');
    expect((await edit(c.id, { platform: 'weixin' })).json().code).toBe('platform_readonly');
    expect((await detail(c.id)).createWay).toBe(4);
  });
});

describe('JSON null and unset options', () => {
  it('null is an absent parameter: nothing is refused, nothing is cleared', async () => {
    const c = await created({ name: 'Nulls', phone: null, email: null, sex: null, grade: null, groupId: null, svcUserId: null });
    expect(c).toMatchObject({ phone: null, sex: 2, ageState: -1, grade: null, svcUserId: String(master.id) });
    await edit(c.id, { phone: '13800000002', company: 'Kept' });
    const res = await edit(c.id, { phone: null, company: null, name: 'Nulls 2' });
    expect(res.json().data).toMatchObject({ name: 'Nulls 2', phone: '13800000002', company: 'Kept' });
    // An empty string still clears.
    expect((await edit(c.id, { company: '' })).json().data.company).toBeNull();
    // A null name on create is a missing name.
    expect((await create({ name: null })).json().code).toBe('name_required');
  });

  it('option fields take "" and "0" as not set, where "0" is not one of their options', async () => {
    const c = await created({ name: 'Options', intentionality: '0', grade: '', lead_source: '0', industry: '0', get_way: '' });
    expect(c).toMatchObject({ intentionality: null, grade: null, leadSource: null, industry: null });
    const form = await create({ name: 'Form options', intentionality: '0', grade: '0', age_state: '' }, master, { form: true });
    expect(form.json().data).toMatchObject({ intentionality: null, grade: null, ageState: -1 });
    // Where "0" is an option it is that option.
    expect((await created({ name: 'Female', sex: '0', age_state: '0' })).sex).toBe(0);
    const edited = await edit(c.id, { grade: '3' });
    expect(edited.json().data.grade).toBe(3);
    expect((await edit(c.id, { grade: '0' })).json().data.grade).toBeNull();
    expect((await create({ name: 'Bad', grade: '9' })).json().code).toBe('grade_invalid');
  });
});

describe('list filters', () => {
  it('customer_group_id, phone and email narrow the list', async () => {
    const group = (await t.server.api.post(`${base()}/customer-groups`, { name: 'Key accounts' }, { token: master.token })).json().data.id;
    const inGroup = await created({ name: 'Grouped', group_id: group, phone: '13800000010' });
    const mailed = await created({ name: 'Mailed', email: 'Mixed.Case@Example.com' });
    await created({ name: 'Other', phone: '13800000011' });
    expect(await listIds({ customer_group_id: group })).toEqual([inGroup.id]);
    expect(await listIds({ group_id: group })).toEqual([inGroup.id]);
    expect(await listIds({ phone: '13800000010' })).toEqual([inGroup.id]);
    expect(await listIds({ email: 'mixed.case@example.COM' })).toEqual([mailed.id]);
    expect(await listIds({ phone: '13800000010', customer_group_id: group })).toEqual([inGroup.id]);
    expect(await listIds({ phone: '13899999999' })).toEqual([]);
    // `all`, the original platform's default, is every group, as if the filter were absent.
    const everyone = await listIds({});
    expect(everyone.length).toBeGreaterThanOrEqual(3);
    expect(await listIds({ customer_group_id: 'all' })).toEqual(everyone);
    expect(await listIds({ group_id: 'all', phone: '13800000010' })).toEqual([inGroup.id]);
    // A Sales member's filters stay within their own customers.
    const res = await t.server.api.get(`${base()}/member/all/customers`, { token: sales.token, query: { phone: '13800000010' } });
    expect(res.json().data).toEqual([]);
  });
});

describe('bodies that cannot be read', () => {
  it('answer a Bad Request envelope and change nothing', async () => {
    const c = await created({ name: 'Unchanged', company: 'Before' });
    const cases: [unknown, Record<string, string>, boolean][] = [
      ['{"company": "After"', {}, false], // malformed JSON
      ['"company=After"', {}, false], // JSON, but not an object
      ['null', {}, false],
      ['42', {}, false],
      ['company=After', { 'content-type': 'text/plain' }, false], // a type only read as text
      ['{"company":"After"}', { 'content-type': 'application/x-www-form-urlencoded' }, false], // JSON sent as a form
    ];
    for (const [body, headers] of cases) {
      const res = await edit(c.id, body, { headers });
      expect(res.statusCode, `${String(body)} ${res.body}`).toBeLessThan(500);
      expect(res.json(), String(body)).toMatchObject({ status: 0 });
      expect(['Bad Request', 'unsupported_media_type']).toContain(res.json().code);
    }
    const text = await edit(c.id, 'company=After', { headers: { 'content-type': 'text/plain' } });
    expect(text.json()).toMatchObject({ status: 0, code: 'Bad Request' });
    expect(text.json().msg).toContain('text/plain');
    const asForm = await create('{"name":"Nobody"}', master, { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(asForm.json()).toMatchObject({ status: 0, code: 'Bad Request' });
    expect(asForm.json().msg).toContain('application/json');
    expect((await detail(c.id)).company).toBe('Before');
    // A form, JSON and an empty edit still work.
    expect((await edit(c.id, { company: 'Form' }, { form: true })).json().data.company).toBe('Form');
    expect((await edit(c.id, { company: 'Json' })).json().data.company).toBe('Json');
    expect((await edit(c.id, {})).json().status).toBe(1);
  });
});

describe('CORS', () => {
  it('answers the preflight of a listed origin and marks its answers; others get no CORS header', async () => {
    const pre = await t.server.app.inject({
      method: 'OPTIONS',
      url: `${base()}/member/${master.id}/customers`,
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(String(pre.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    const get = await t.server.api.get(`/api/v1.7/app/${appId}`, { token: master.token, headers: { origin: 'http://localhost:5173' } });
    expect(get.json().status).toBe(1);
    expect(get.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    const other = await t.server.api.get(`/api/v1.7/app/${appId}`, { token: master.token, headers: { origin: 'https://evil.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const otherPre = await t.server.app.inject({
      method: 'OPTIONS',
      url: `/api/v1.7/app/${appId}`,
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(otherPre.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('registering an existing OAuth client', () => {
  it('a client id and secret baked into scripts log in once registered', async () => {
    const registered = await t.server.services.clients.register('legacy-partner-01', 'baked-in-secret-42');
    expect(registered).toEqual({ client_id: 'legacy-partner-01', name: 'legacy-partner-01' });
    const legacy: TestClient = {
      client_id: 'legacy-partner-01',
      client_secret: 'baked-in-secret-42',
      basic: `Basic ${Buffer.from('legacy-partner-01:baked-in-secret-42').toString('base64')}`,
    };
    const user = await activeUser(t.server, legacy);
    expect((await t.server.api.get('/api/v1.7/my-apps', { token: user.token })).json().status).toBe(1);
    await expect(t.server.services.clients.register('legacy-partner-01', 'another-secret')).rejects.toThrow('exists');
    await expect(t.server.services.clients.register('bad id', 'baked-in-secret-42')).rejects.toThrow('client id');
    await expect(t.server.services.clients.register('short-secret', 'abc')).rejects.toThrow('secret');
  });

  describe('from the CLI', () => {
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      db = await freshDatabase();
      expect(await runCli(['migrate'], db.env).exited).toBe(0);
    });
    afterAll(async () => {
      await db.drop();
    });
    it('rapport client create --id ID --secret S', async () => {
      const made = runCli(['client', 'create', '--id', 'acme-script', '--secret', 's3cret-from-2019', '--name', 'Acme scripts'], db.env);
      expect(await made.exited).toBe(0);
      expect(JSON.parse(made.output().trim())).toEqual({ client_id: 'acme-script', name: 'Acme scripts' });
      const again = runCli(['client', 'create', '--id', 'acme-script', '--secret', 's3cret-from-2019'], db.env);
      expect(await again.exited).toBe(1);
      expect(again.output()).toContain('exists');
      const usage = runCli(['client', 'create', '--id', 'x'], db.env);
      expect(await usage.exited).toBe(2);
      const list = runCli(['client', 'list'], db.env);
      expect(await list.exited).toBe(0);
      expect(list.output()).toContain('acme-script');
      expect(list.output()).not.toContain('s3cret-from-2019');
    });
  });
});
