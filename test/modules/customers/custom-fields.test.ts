// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

/** Editable customer fields: custom fields of five types, built-in edits, uniqueness, removal, search, and races. */
const t = useTestServer();
let client: TestClient;
let master: TestUser;
let admin: TestUser;
let sales: TestUser;
let outsider: TestUser;
let appId: string;

type Json = Record<string, unknown>;
const base = () => `/api/v1.7/app/${appId}`;
const fieldsUrl = () => `${base()}/metadata/customer`;
const addField = (u: TestUser, body: Json) => t.server.api.post(fieldsUrl(), body, { token: u.token });
const editField = (u: TestUser, name: string, body: Json) => t.server.api.put(`${fieldsUrl()}/${name}`, body, { token: u.token });
const form = async (u: TestUser = master) =>
  (await t.server.api.get('/api/v1.7/metadata/customer', { token: u.token, query: { app_id: appId } })).json().data as Json[];
const create = (body: Json, u: TestUser = master, asForm = false) =>
  t.server.api.post(`${base()}/member/${u.id}/customers`, body, { token: u.token, form: asForm });
async function created(body: Json, u: TestUser = master): Promise<Json & { id: string }> {
  const res = await create(body, u);
  expect(res.json().status, res.body).toBe(1);
  return res.json().data as Json & { id: string };
}
const edit = (id: string, body: Json, u: TestUser = master) =>
  t.server.api.put(`${base()}/member/${u.id}/customer/${id}`, body, { token: u.token });
const detail = async (id: string, u: TestUser = master) =>
  (await t.server.api.get(`/api/v1.7/customer/${id}/detail`, { token: u.token })).json().data as Json;
const list = async (query: Record<string, string>, u: TestUser = master) =>
  (await t.server.api.get(`${base()}/member/all/customers`, { token: u.token, query })).json().data as Json[];

beforeAll(async () => {
  client = await createClient(t.server);
  [master, admin, sales, outsider] = (await Promise.all([0, 1, 2, 3].map(() => activeUser(t.server, client)))) as [
    TestUser,
    TestUser,
    TestUser,
    TestUser,
  ];
  appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Fields' }, { token: master.token })).json().data.appId;
  await t.server.api.post(`${base()}/members`, { svc_user_id: admin.id, role: 'Admin' }, { token: master.token });
  await t.server.api.post(`${base()}/members`, { svc_user_id: sales.id }, { token: master.token });
  await t.server.api.get(`${base()}`, { token: admin.token });
  await t.server.api.get(`${base()}`, { token: sales.token });
});

describe('defining custom fields', () => {
  it('adds fields of each type to the project form, in order, for Master and Admin only', async () => {
    const before = await form();
    const text = await addField(master, { name: 'contract', label: 'Contract no.', type: 'text', unique: true });
    expect(text.json(), text.body).toMatchObject({
      status: 1,
      data: { appId, name: 'contract', type: 'text', title: 'Contract no.', isExt: true, unique: true, required: false, readonly: 0 },
    });
    expect((await addField(admin, { name: 'seats', label: 'Seats', type: 'number' })).json().status).toBe(1);
    expect((await addField(master, { name: 'renewal', label: 'Renewal', type: 'date' })).json().status).toBe(1);
    const tier = await addField(master, {
      name: 'tier',
      label: 'Tier',
      type: 'option',
      options: [
        { value: 'gold', label: 'Gold' },
        { value: 'silver', label: 'Silver' },
      ],
      searchable: true,
    });
    expect(tier.json().data).toMatchObject({
      optionValues: JSON.stringify([
        { value: 'gold', label: 'Gold' },
        { value: 'silver', label: 'Silver' },
      ]),
    });
    // Plain values are options whose label is the value; a form body sends the array as JSON text.
    const tags = await t.server.api.post(
      fieldsUrl(),
      { name: 'tags', label: 'Tags', type: 'multiOption', options: JSON.stringify(['vip', 'partner', 'press']), searchable: '1' },
      { token: master.token, form: true },
    );
    expect(tags.json().data, tags.body).toMatchObject({ name: 'tags', type: 'multiOption', searchable: true });
    expect((await addField(master, { name: 'notes', label: 'Notes', type: 'text', searchable: true })).json().status).toBe(1);

    const after = await form(sales);
    expect(after.map((f) => f.name)).toEqual([...before.map((f) => f.name), 'contract', 'seats', 'renewal', 'tier', 'tags', 'notes']);
    // The interface's item keys, `searchable` only where true.
    expect(Object.keys(after.find((f) => f.name === 'seats') as Json).sort()).toEqual(Object.keys(before[0] as Json).sort());

    expect((await addField(sales, { name: 'nope', label: 'Nope', type: 'text' })).statusCode).toBe(403);
    expect((await addField(outsider, { name: 'nope', label: 'Nope', type: 'text' })).statusCode).toBe(403);
  });

  it('refuses bad definitions with a code naming the problem', async () => {
    const code = async (body: Json) => (await addField(master, body)).json().code as string;
    expect(await code({ name: 'contract', label: 'Again', type: 'text' })).toBe('field_exists');
    expect(await code({ name: 'phone', label: 'Phone 2', type: 'text' })).toBe('field_exists');
    expect(await code({ name: 'exts', label: 'x', type: 'text' })).toBe('field_exists');
    expect(await code({ name: '9lives', label: 'x', type: 'text' })).toBe('name_invalid');
    expect(await code({ name: 'color', label: 'Color', type: 'colour' })).toBe('type_invalid');
    expect(await code({ name: 'color', type: 'text' })).toBe('label_required');
    expect(await code({ name: 'color', label: 'Color', type: 'option' })).toBe('options_required');
    expect(await code({ name: 'color', label: 'Color', type: 'option', options: [{ value: 'a' }, { value: 'a' }] })).toBe(
      'options_invalid',
    );
    expect(await code({ name: 'color', label: 'Color', type: 'text', options: ['a'] })).toBe('options_invalid');
    expect(await code({ name: 'color', label: 'Color', type: 'multiOption', options: ['a'], unique: true })).toBe('unique_invalid');
    expect((await form()).some((f) => f.name === 'color')).toBe(false);
  });
});

describe('custom values', () => {
  it('travel as their own keys or in exts, are validated by type, and come back in the detail and the list', async () => {
    const c = await created({ name: 'Ada', contract: 'C-1', seats: 12, renewal: '2027-01-31', tier: 'gold', tags: ['vip', 'press'] });
    expect(c.exts).toEqual({ contract: 'C-1', seats: 12, renewal: '2027-01-31', tier: 'gold', tags: ['vip', 'press'] });
    expect((await detail(c.id)).exts).toEqual(c.exts);
    expect((await list({ keyword: 'Ada' })).find((x) => x.id === c.id)?.exts).toEqual(c.exts);

    // In a form body: exts as JSON text, a multi-option as values separated by commas.
    const f = await create({ name: 'Bob', exts: JSON.stringify({ seats: '3.5', tags: 'partner,vip' }) }, master, true);
    expect(f.json().data.exts, f.body).toEqual({ seats: 3.5, tags: ['partner', 'vip'] });
    // A customer without custom values has no exts key, as before.
    expect('exts' in (await created({ name: 'Plain' }))).toBe(false);

    const code = async (body: Json) => (await create({ name: 'X', ...body })).json().code as string;
    expect(await code({ seats: 'many' })).toBe('seats_invalid');
    expect(await code({ renewal: '2027-02-30' })).toBe('renewal_invalid');
    expect(await code({ tier: 'bronze' })).toBe('tier_invalid');
    expect(await code({ tags: ['vip', 'nobody'] })).toBe('tags_invalid');
    expect(await code({ exts: 'not json' })).toBe('exts_invalid');
    expect(await code({ contract: 'C-1' })).toBe('contract_unique');
    expect(await code({ exts: { contract: 'C-1' } })).toBe('contract_unique');
  });

  it('edits set, change and clear one value and keep the others', async () => {
    const c = await created({ name: 'Cleo', contract: 'C-2', seats: 1, tier: 'silver' });
    const res = await edit(c.id, { seats: 2, exts: { tier: '' } });
    expect(res.json().data.exts, res.body).toEqual({ contract: 'C-2', seats: 2 });
    expect((await edit(c.id, { contract: 'C-2' })).json().status).toBe(1); // its own value is not taken
    expect((await edit(c.id, { contract: 'C-1' })).json().code).toBe('contract_unique');
    expect((await detail(c.id)).exts).toEqual({ contract: 'C-2', seats: 2 });
  });

  it('required custom fields are required on create', async () => {
    expect((await addField(master, { name: 'region', label: 'Region', type: 'text', required: 1 })).json().status).toBe(1);
    expect((await create({ name: 'NoRegion' })).json().code).toBe('region_required');
    expect((await created({ name: 'WithRegion', region: 'EMEA' })).exts).toMatchObject({ region: 'EMEA' });
    expect((await editField(master, 'region', { required: false })).json().data.required).toBe(false);
    expect((await create({ name: 'NoRegion' })).json().status).toBe(1);
  });

  it('the list keyword looks in searchable fields only', async () => {
    const c = await created({ name: 'Searchable', tier: 'silver', notes: 'Met at the Lisbon fair', contract: 'LISBON-9' });
    const ids = async (keyword: string) => (await list({ keyword })).map((x) => x.id);
    expect(await ids('lisbon fair')).toEqual([c.id]);
    expect(await ids('silver')).toContain(c.id);
    // contract is not searchable.
    expect(await ids('LISBON-9')).not.toContain(c.id);
    expect((await editField(master, 'contract', { searchable: true })).json().data.searchable).toBe(true);
    expect(await ids('lisbon-9')).toEqual([c.id]);
  });
});

describe('editing fields', () => {
  it('a built-in field: label, required flag, options and order; a removed option keeps stored values', async () => {
    const c = await created({ name: 'Grace', industry: '金融', grade: '2' });
    const opts = [
      { value: '教育', label: 'Education' },
      { value: 'SaaS', label: 'SaaS' },
    ];
    const res = await editField(admin, 'industry', { label: 'Industry', options: opts, index: 0 });
    expect(res.json().data, res.body).toMatchObject({ name: 'industry', title: 'Industry', optionValues: JSON.stringify(opts), index: 0 });
    expect((await form())[0]?.name).toBe('industry');
    expect((await detail(c.id)).industry).toBe('金融');
    // The stored value may be sent back; a new customer cannot take it.
    expect((await edit(c.id, { industry: '金融', name: 'Grace H.' })).json().status).toBe(1);
    expect((await create({ name: 'New', industry: '金融' })).json().code).toBe('industry_invalid');
    expect((await create({ name: 'New', industry: 'SaaS' })).json().status).toBe(1);

    // Options of a field stored as a number must be whole numbers; the default value stays an option.
    expect((await editField(master, 'grade', { options: [{ value: 'A', label: 'A' }] })).json().code).toBe('options_invalid');
    expect((await editField(master, 'sex', { options: [{ value: '0', label: 'F' }] })).json().code).toBe('options_invalid');
    expect((await editField(master, 'grade', { required: true })).json().data.required).toBe(true);
    expect((await create({ name: 'NoGrade' })).json().code).toBe('grade_required');
    await editField(master, 'grade', { required: false });

    expect((await editField(master, 'name', { type: 'number' })).json().code).toBe('type_invalid');
    expect((await editField(master, 'createWay', { readonly: false })).json().code).toBe('field_builtin');
    expect((await editField(master, 'grade', { unique: true })).json().code).toBe('field_builtin');
    expect((await t.server.api.delete(`${fieldsUrl()}/name`, { token: master.token })).json().code).toBe('field_builtin');
    expect((await editField(master, 'nothere', { label: 'x' })).json().code).toBe('field_not_found');
    expect((await editField(sales, 'grade', { label: 'x' })).statusCode).toBe(403);
  });

  it('making a field unique over duplicates is refused, naming them', async () => {
    const a = await created({ name: 'Dup A', phone: '13900000001', notes: 'same' });
    const b = await created({ name: 'Dup B', phone: '13900000001', notes: 'same' });
    const refused = await editField(master, 'phone', { unique: true });
    expect(refused.json()).toMatchObject({ status: 0, code: 'field_duplicates' });
    expect(refused.json().duplicates).toEqual([{ value: '13900000001', customerIds: [a.id, b.id].sort() }]);
    expect(refused.json().msg).toContain(a.id);
    expect((await form()).find((f) => f.name === 'phone')?.unique).toBe(false);
    const custom = await editField(master, 'notes', { unique: true });
    expect(custom.json()).toMatchObject({ code: 'field_duplicates', duplicates: [{ value: 'same', customerIds: [a.id, b.id].sort() }] });

    // Once the duplicates are gone it is accepted, and enforced.
    await t.server.api.delete(`${base()}/member/${master.id}/customer/${b.id}`, { token: master.token });
    expect((await editField(master, 'phone', { unique: true })).json().data.unique).toBe(true);
    expect((await create({ name: 'Dup C', phone: '13900000001' })).json().code).toBe('phone_unique');
    await editField(master, 'phone', { unique: false });
  });

  it('removing a field hides it from the form and writes, keeps its values, and adding it again brings them back', async () => {
    const c = await created({ name: 'Hedy', seats: 40 });
    expect((await t.server.api.delete(`${fieldsUrl()}/seats`, { token: sales.token })).statusCode).toBe(403);
    expect((await t.server.api.delete(`${fieldsUrl()}/seats`, { token: master.token })).json()).toEqual({ status: 1, data: true });
    expect((await form()).some((f) => f.name === 'seats')).toBe(false);
    expect((await detail(c.id)).exts).toMatchObject({ seats: 40 });
    // Not validated nor written any more.
    expect((await edit(c.id, { seats: 'lots' })).json().status).toBe(1);
    expect((await detail(c.id)).exts).toMatchObject({ seats: 40 });
    expect((await editField(master, 'seats', { label: 'x' })).json().code).toBe('field_not_found');
    expect((await addField(master, { name: 'seats', label: 'Seats', type: 'text' })).json().code).toBe('field_exists');
    expect((await addField(master, { name: 'seats', label: 'Seats again', type: 'number' })).json().data.title).toBe('Seats again');
    expect((await edit(c.id, { seats: 41 })).json().data.exts).toMatchObject({ seats: 41 });
  });

  it('readonly custom fields are set on create and refused on edit when changed', async () => {
    expect((await addField(master, { name: 'origin', label: 'Origin', type: 'text', readonly: true })).json().data.readonly).toBe(1);
    const c = await created({ name: 'Ro', origin: 'fair' });
    expect((await edit(c.id, { origin: 'web' })).json().code).toBe('origin_readonly');
    expect((await edit(c.id, { origin: 'fair', exts: { origin: 'fair' } })).json().status).toBe(1);
  });
});

describe('field edits racing with writes', () => {
  it('a field made unique while customers with one value are being created: refused, or no duplicates', async () => {
    expect((await addField(master, { name: 'badge', label: 'Badge', type: 'text' })).json().status).toBe(1);
    const creates = Array.from({ length: 12 }, (_, i) => create({ name: `Racer ${i}`, badge: 'B-7' }));
    const unique = editField(admin, 'badge', { unique: true });
    const results = await Promise.all(creates);
    const u = await unique;
    for (const r of [...results, u]) {
      expect(r.statusCode, r.body).toBe(200);
      expect([0, 1]).toContain(r.json().status);
    }
    const holders = (await list({ keyword: 'Racer', count: '100' })).filter((x) => (x.exts as Json | undefined)?.badge === 'B-7');
    expect(holders.length).toBe(results.filter((r) => r.json().status === 1).length);
    if (u.json().status === 1) {
      expect(holders.length).toBeLessThanOrEqual(1);
      for (const r of results) if (r.json().status === 0) expect(r.json().code).toBe('badge_unique');
    } else {
      expect(u.json().code).toBe('field_duplicates');
      expect(holders.length).toBeGreaterThan(1);
      expect(results.every((r) => r.json().status === 1)).toBe(true);
    }
  });

  it('a field made unique while a write validated by the old form is still open waits for it, and is refused over its duplicate', async () => {
    expect((await addField(master, { name: 'ticket', label: 'Ticket', type: 'text' })).json().status).toBe(1);
    const first = await created({ name: 'Ticket 1', ticket: 'T-1' });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let validated = () => {};
    const ready = new Promise<void>((resolve) => (validated = resolve));
    // A create checked against the form without uniqueness, its transaction kept open.
    const write = t.server.ctx.database.db.transaction().execute(async (trx) => {
      const c = await t.server.services.customers.writePath.createInTransaction(
        trx,
        appId,
        { name: 'Ticket 2', ticket: 'T-1' },
        { ownerId: master.id, now: t.server.ctx.clock.now(), validate: 'create', mayAssignOthers: true },
      );
      validated();
      await held;
      return c;
    });
    await ready;
    const unique = editField(admin, 'ticket', { unique: true });
    // Room for the edit to run ahead, were nothing holding it (the answer below does not depend on it).
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    const second = await write;
    const answer = (await unique).json();
    expect(answer, JSON.stringify(answer)).toMatchObject({ status: 0, code: 'field_duplicates' });
    expect(answer.duplicates).toEqual([{ value: 'T-1', customerIds: [first.id, second.id].sort() }]);
    expect((await form()).find((f) => f.name === 'ticket')?.unique).toBe(false);
  });

  it('options changed while customers are created and edited: every write is whole and valid for the form it saw', async () => {
    expect((await addField(master, { name: 'stage', label: 'Stage', type: 'option', options: ['lead', 'won'] })).json().status).toBe(1);
    const c = await created({ name: 'Stage edits', stage: 'lead' });
    const writes = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? create({ name: `Staged ${i}`, stage: 'won' }) : edit(c.id, { stage: 'won' }),
    );
    const change = editField(master, 'stage', { options: ['lead', 'lost'] });
    const results = await Promise.all(writes);
    expect((await change).json().status).toBe(1);
    for (const r of results) {
      expect(r.statusCode).toBe(200);
      if (r.json().status === 0) expect(r.json().code).toBe('stage_invalid');
      else expect(r.json().data.exts.stage).toBe('won');
    }
    // After the change, 'won' is refused for new customers; what was stored stays.
    expect((await create({ name: 'Late', stage: 'won' })).json().code).toBe('stage_invalid');
    const staged = (await list({ keyword: 'Staged', count: '100' })).map((x) => (x.exts as Json).stage);
    expect(staged.every((s) => s === 'won')).toBe(true);
  });
});
