// lanes: sqlite postgres
/**
 * International contact data through HTTP (docs/customers.md, "Phone numbers"): numbers formatted as
 * sales teams type them, read against the project's region, stored as sent, and matched by their
 * key (E.164) in search, duplicates, whetherMerge, imports and the viewer's form.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { multipart } from '../../helpers/files.ts';
import { type TestClient, type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

const t = useTestServer();
let client: TestClient;
let master: TestUser;

/** For each region: a mobile number as a local salesperson writes it, and the same number in international form. */
const NUMBERS: Record<string, { national: string; international: string; landline: string }> = {
  GB: { national: '07911 123456', international: '+44 7911 123456', landline: '020 7946 0958' },
  US: { national: '(650) 253-0000', international: '+1 650-253-0000', landline: '(212) 555-0100 ext. 7' },
  CN: { national: '138 0013 8000', international: '+86 138 0013 8000', landline: '0571-1234567' },
  DE: { national: '0151 23456789', international: '+49 151 23456789', landline: '030 1234567' },
  IN: { national: '098765 43210', international: '+91 98765 43210', landline: '011 2345 6789' },
  BR: { national: '(11) 91234-5678', international: '+55 11 91234-5678', landline: '(11) 3456-7890' },
  JP: { national: '090-1234-5678', international: '+81 90-1234-5678', landline: '03-1234-5678' },
};

async function project(region?: string): Promise<string> {
  const body: Record<string, unknown> = { name: `Phones ${region ?? 'default'}` };
  if (region !== undefined) body.region = region;
  const res = await t.server.api.post('/api/v1.7/apps', body, { token: master.token });
  expect(res.json().status, res.body).toBe(1);
  return res.json().data.appId as string;
}

const customers = (appId: string) => `/api/v1.7/app/${appId}/member/${master.id}/customers`;
const one = (appId: string, id: string) => `/api/v1.7/app/${appId}/member/${master.id}/customer/${id}`;
const create = (appId: string, body: Record<string, unknown>) => t.server.api.post(customers(appId), body, { token: master.token });
const search = async (appId: string, condition: string) =>
  ((await t.server.api.get(`/api/v1.7/app/${appId}/customer/appSearch`, { token: master.token, query: { condition } })).json().data ??
    []) as { id: string; phone: string; whetherMerge: number }[];

beforeAll(async () => {
  client = await createClient(t.server);
  master = await activeUser(t.server, client);
});

describe('projects: region', () => {
  it('is CN for a project made without one, is set on create and edit in any case, and is refused when no region', async () => {
    const plain = await project();
    const detail = async (appId: string) =>
      (await t.server.api.get(`/api/v1.7/app/${appId}`, { token: master.token })).json().data as { region: string };
    expect((await detail(plain)).region).toBe('CN');
    const gb = await project('gb');
    expect((await detail(gb)).region).toBe('GB');
    const edit = await t.server.api.post(`/api/v1.7/app/${gb}`, { region: 'de' }, { token: master.token });
    expect(edit.json()).toMatchObject({ status: 1 });
    expect((await detail(gb)).region).toBe('DE');
    for (const bad of ['XX', 'GBR', '', 'uk']) {
      const refused = await t.server.api.post(`/api/v1.7/app/${gb}`, { region: bad, name: 'Renamed' }, { token: master.token });
      expect(refused.json(), bad).toMatchObject({ status: 0, code: 'region_invalid' });
      const made = await t.server.api.post('/api/v1.7/apps', { name: 'Nowhere', region: bad }, { token: master.token });
      expect(made.json(), bad).toMatchObject({ status: 0, code: 'region_invalid' });
    }
    // A refused edit changed nothing.
    expect((await detail(gb)).region).toBe('DE');
    const mine = (await t.server.api.get('/api/v1.7/my-apps', { token: master.token })).json().data as { id: string; region: string }[];
    expect(mine.find((a) => a.id === gb)?.region).toBe('DE');
  });
});

describe.each(Object.entries(NUMBERS))('customers in a %s project', (region, n) => {
  let appId: string;
  beforeAll(async () => {
    appId = await project(region);
  });

  it('accepts formatted numbers, stores them as sent, finds them in national and international form', async () => {
    const res = await create(appId, { name: 'Local', phone: n.national, fixed_phone: n.landline });
    expect(res.json().status, res.body).toBe(1);
    const c = res.json().data as { id: string; phone: string; fixedPhone: string };
    expect([c.phone, c.fixedPhone]).toEqual([n.national, n.landline]);
    for (const form of [n.national, n.international, n.international.replace(/[\s-]/g, '')]) {
      expect(
        (await search(appId, form)).map((x) => x.id),
        form,
      ).toEqual([c.id]);
    }
    // The list's phone filter matches the number however written, too.
    const listed = await t.server.api.get(`/api/v1.7/app/${appId}/member/all/customers`, {
      token: master.token,
      query: { phone: n.international },
    });
    expect((listed.json().data as { id: string }[]).map((x) => x.id)).toEqual([c.id]);
    // An edit to the international form is kept as sent, and the customer is still found by either.
    const edited = await t.server.api.put(one(appId, c.id), { phone: n.international }, { token: master.token });
    expect(edited.json().data.phone, edited.body).toBe(n.international);
    expect((await search(appId, n.national)).map((x) => x.id)).toEqual([c.id]);
  });

  it('one number written two ways: a duplicate set and whetherMerge', async () => {
    const a = (await create(appId, { name: 'Twin A', phone: n.national })).json().data as { id: string };
    const b = (await create(appId, { name: 'Twin B', phone: n.international })).json().data as { id: string; whetherMerge: number };
    expect(b.whetherMerge).toBe(1);
    const sets = (
      await t.server.api.get(`/api/v1.7/app/${appId}/member/all/customer/duplicates`, { token: master.token, query: { by: 'phone' } })
    ).json().data as { value: string; customers: { id: string }[] }[];
    const set = sets.find((s) => s.customers.some((x) => x.id === a.id));
    expect(set?.customers.map((x) => x.id)).toEqual(expect.arrayContaining([a.id, b.id]));
  });

  it('refuses a number that is none of the region, with phone_invalid, and writes nothing', async () => {
    for (const bad of ['12', '12ab', 'call me', '+44 12']) {
      const res = await create(appId, { name: 'Bad', phone: bad });
      expect(res.json(), bad).toMatchObject({ status: 0, code: 'phone_invalid' });
    }
    expect(await search(appId, '12')).toEqual([]);
  });

  it('an import matches a stored customer by its number written the other way', async () => {
    // A project of its own: the customers above share this number.
    const appId = await project(region);
    const stored = (await create(appId, { name: 'Stored', phone: n.national, email: `stored-${region}@example.com` })).json().data as {
      id: string;
    };
    const file = Buffer.from(`name,phone,company\r\nImported,"${n.international}",Imported Co\r\n`);
    const body = multipart({ filename: 'people.csv', bytes: file }, { duplicate_policy: 'update' });
    const started = await t.server.api.post(`/api/v1.7/app/${appId}/member/${master.id}/customer-imports`, body.payload, {
      token: master.token,
      headers: { 'content-type': body.contentType },
    });
    expect(started.json().status, started.body).toBe(1);
    const id = started.json().data.id as string;
    let job: { status: string; created: number; updated: number; failed: number } | undefined;
    for (let i = 0; i < 400; i += 1) {
      job = (await t.server.api.get(`/api/v1.7/app/${appId}/member/${master.id}/customer-import/${id}`, { token: master.token })).json()
        .data;
      if (job?.status === 'done' || job?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job).toMatchObject({ status: 'done', created: 0, updated: 1, failed: 0 });
    const detail = (await t.server.api.get(`/api/v1.7/customer/${stored.id}/detail`, { token: master.token })).json().data;
    expect(detail).toMatchObject({ company: 'Imported Co', phone: n.international });
  });
});

describe('customers stored before phone keys', () => {
  it('are keyed by the background job, then found in any form', async () => {
    const appId = await project('GB');
    const c = (await create(appId, { name: 'Old', phone: '07911 654321' })).json().data as { id: string };
    const db = t.server.ctx.database.db;
    // As a customer stored before migration 030 is: its number without a key.
    await db.updateTable('customers').set({ phone_key: null }).where('app_id', '=', appId).where('id', '=', c.id).execute();
    expect(await search(appId, '+447911654321')).toEqual([]);
    while ((await t.server.services.customers.phoneKeys.runOnce()) > 0);
    expect((await search(appId, '+44 7911 654321')).map((x) => x.id)).toEqual([c.id]);
    const row = await db.selectFrom('customers').select('phone_key').where('app_id', '=', appId).where('id', '=', c.id).executeTakeFirst();
    expect(row?.phone_key).toBe('+447911654321');
  });

  it('a value stored before numbers were read this way may be sent back unchanged on edit', async () => {
    const appId = await project('CN');
    const c = (await create(appId, { name: 'Legacy', phone: '13800138001' })).json().data as { id: string };
    await t.server.ctx.database.db
      .updateTable('customers')
      .set({ phone: '12345' })
      .where('app_id', '=', appId)
      .where('id', '=', c.id)
      .execute();
    const same = await t.server.api.put(one(appId, c.id), { phone: '12345', name: 'Legacy 2' }, { token: master.token });
    expect(same.json(), same.body).toMatchObject({ status: 1, data: { phone: '12345', name: 'Legacy 2' } });
    const other = await t.server.api.put(one(appId, c.id), { phone: '12346' }, { token: master.token });
    expect(other.json()).toMatchObject({ status: 0, code: 'phone_invalid' });
  });
});
