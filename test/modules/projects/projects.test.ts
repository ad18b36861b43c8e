// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

const t = useTestServer();
let client: TestClient;
let master: TestUser;
let admin: TestUser;
let sales: TestUser;
let outsider: TestUser;
let appId: string;

const PROJECT_FIELDS = [
  'id',
  'creatorId',
  'name',
  'type',
  'description',
  'iconURL',
  'iconWidth',
  'iconHeight',
  'iosBundleId',
  'androidPackageName',
  'conferenceId',
  'status',
  'redirectUri',
  'createTime',
  'editTime',
  // Site tracking's public key and origins (docs/site-tracking.md), beyond the interface.
  'siteKey',
  'siteOrigins',
  // The region its phone numbers are read against (docs/projects.md), beyond the interface.
  'region',
  // Its own share domain (docs/projects.md), beyond the interface.
  'shareDomain',
].sort();

beforeAll(async () => {
  client = await createClient(t.server);
  [master, admin, sales, outsider] = (await Promise.all([0, 1, 2, 3].map(() => activeUser(t.server, client)))) as [
    TestUser,
    TestUser,
    TestUser,
    TestUser,
  ];
  const res = await t.server.api.post(
    '/api/v1.7/apps',
    { name: 'Acme CRM', description: 'Pilot', svc_user_id: master.id },
    { token: master.token, form: true },
  );
  appId = res.json().data.appId;
  await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: admin.id, role: 'Admin' }, { token: master.token, form: true });
  await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: sales.id }, { token: master.token, form: true });
});

describe('projects', () => {
  it('create answers {appId, name, description} and makes the creator Master', async () => {
    const res = await t.server.api.post('/api/v1.7/apps', { name: 'Second', description: 'd' }, { token: master.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 1, data: { appId: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Second', description: 'd' } });
    const members = await t.server.api.get(`/api/v1.7/app/${res.json().data.appId}/members`, { token: master.token });
    expect(members.json().data).toEqual([
      expect.objectContaining({ svcUserId: master.id, role: 'Master', isOwner: true, postRoles: ['MarketPost', 'SalesPost'] }),
    ]);
  });

  it('create fails with {status:0, code, msg} for a missing or too long name, or another creator id', async () => {
    const missing = await t.server.api.post('/api/v1.7/apps', { description: 'x' }, { token: master.token });
    expect(missing.json()).toEqual({ status: 0, code: 'name_required', msg: expect.any(String) });
    const long = await t.server.api.post('/api/v1.7/apps', { name: 'n'.repeat(101) }, { token: master.token });
    expect(long.json()).toMatchObject({ status: 0, code: 'name_invalid' });
    const other = await t.server.api.post('/api/v1.7/apps', { name: 'x', svc_user_id: sales.id }, { token: master.token });
    expect(other.json()).toMatchObject({ status: 0, code: 'svc_user_id_invalid' });
  });

  it('detail returns every project field and never the secret', async () => {
    for (const who of [master, admin, sales]) {
      const res = await t.server.api.get(`/api/v1.7/app/${appId}`, { token: who.token });
      expect(res.json().status).toBe(1);
      const data = res.json().data;
      expect(Object.keys(data).sort()).toEqual(PROJECT_FIELDS);
      expect(data).toMatchObject({ id: appId, creatorId: master.id, name: 'Acme CRM', description: 'Pilot', status: 0 });
      expect(data.createTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }
  });

  it('my-apps shows the secret to Master and Admin only', async () => {
    const secrets: Record<string, unknown> = {};
    for (const [name, who] of Object.entries({ master, admin, sales })) {
      const res = await t.server.api.get('/api/v1.7/my-apps', { token: who.token });
      const item = res.json().data.find((a: { id: string }) => a.id === appId);
      expect(Object.keys(item).sort()).toEqual([...PROJECT_FIELDS, 'secret'].sort());
      secrets[name] = item.secret;
    }
    expect(secrets.master).toEqual(expect.any(String));
    expect(String(secrets.master).length).toBeGreaterThanOrEqual(32);
    expect(secrets.admin).toBe(secrets.master);
    expect(secrets.sales).toBeNull();
    const none = await t.server.api.get('/api/v1.7/my-apps', { token: outsider.token });
    expect(none.json().data.find((a: { id: string }) => a.id === appId)).toBeUndefined();
  });

  it('rotating the secret: a new one at once, the old one for 24 hours, an older one not at all, audited', async () => {
    const { secret: original } = (await t.server.api.get('/api/v1.7/my-apps', { token: master.token }))
      .json()
      .data.find((a: { id: string }) => a.id === appId) as { secret: string };
    // 1: the secret is accepted; else the refusal's HTTP status.
    const ingests = async (secret: string) => {
      const res = await t.server.api.post(`/api/v1.7/app/${appId}/events`, [], { headers: { 'x-app-secret': secret } });
      return res.statusCode === 200 ? (res.json().status as number) : res.statusCode;
    };
    expect(await ingests(original)).toBe(1);

    const bySales = await t.server.api.post(`/api/v1.7/app/${appId}/secret-rotations`, {}, { token: sales.token });
    expect(bySales.statusCode).toBe(403);
    const rotated = await t.server.api.post(`/api/v1.7/app/${appId}/secret-rotations`, {}, { token: admin.token });
    const first = rotated.json().data as { secret: string; previousSecretValidUntil: string };
    expect(first.secret).not.toBe(original);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(first.previousSecretValidUntil).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const listed = (await t.server.api.get('/api/v1.7/my-apps', { token: master.token }))
      .json()
      .data.find((a: { id: string }) => a.id === appId) as { secret: string };
    expect(listed.secret).toBe(first.secret);
    expect(await ingests(first.secret)).toBe(1);
    expect(await ingests(original)).toBe(1);

    // The overlap ends: the replaced secret stops working.
    await t.server.ctx.database.db
      .updateTable('apps')
      .set({ previous_secret_until: Date.now() - 1 })
      .where('id', '=', appId)
      .execute();
    expect(await ingests(original)).toBe(403);
    expect(await ingests(first.secret)).toBe(1);

    // Rotating again: only the secret just replaced keeps its overlap.
    const second = (await t.server.api.post(`/api/v1.7/app/${appId}/secret-rotations`, {}, { token: master.token })).json().data as {
      secret: string;
    };
    expect(await ingests(second.secret)).toBe(1);
    expect(await ingests(first.secret)).toBe(1);
    expect(await ingests(original)).toBe(403);

    const log = (await t.server.api.get(`/api/v1.7/app/${appId}/audit-log`, { token: master.token, query: { count: 100 } })).json()
      .data as { action: string; svcUserId: string; detail: unknown }[];
    const entries = log.filter((e) => e.action === 'project.secret_rotate');
    expect(entries.map((e) => e.svcUserId)).toEqual([String(master.id), String(admin.id)]);
    expect(JSON.stringify(entries)).not.toContain(first.secret);
  });

  it('edit: Master and Admin may, Sales may not, outsiders get 403, unknown projects app_not_found', async () => {
    const byAdmin = await t.server.api.post(
      `/api/v1.7/app/${appId}`,
      { name: 'Acme CRM 2', description: 'Edited' },
      { token: admin.token, form: true },
    );
    expect(byAdmin.json()).toEqual({ status: 1, data: true });
    const detail = await t.server.api.get(`/api/v1.7/app/${appId}`, { token: master.token });
    expect(detail.json().data).toMatchObject({ name: 'Acme CRM 2', description: 'Edited' });
    const bySales = await t.server.api.post(`/api/v1.7/app/${appId}`, { name: 'Hijack' }, { token: sales.token });
    expect(bySales.statusCode).toBe(403);
    expect(bySales.json()).toEqual({ error: 'forbidden', error_description: expect.any(String) });
    const byOutsider = await t.server.api.post(`/api/v1.7/app/${appId}`, { name: 'Hijack' }, { token: outsider.token });
    expect(byOutsider.statusCode).toBe(403);
    const unknown = await t.server.api.post('/api/v1.7/app/no-such-app', { name: 'x' }, { token: master.token });
    expect(unknown.json()).toEqual({ status: 0, code: 'app_not_found', msg: expect.any(String) });
    const bad = await t.server.api.post(`/api/v1.7/app/${appId}`, { name: 'n'.repeat(200) }, { token: master.token });
    expect(bad.json()).toMatchObject({ status: 0, code: 'name_invalid' });
  });

  it("edit takes svc_user_id as the interface documents it (the creator's id), and refuses a blank name", async () => {
    const edit = (body: Record<string, unknown>, token = admin.token) =>
      t.server.api.post(`/api/v1.7/app/${appId}`, body, { token, form: true }).then((r) => r.json());
    expect(await edit({ svc_user_id: master.id, name: 'By the creator id' })).toEqual({ status: 1, data: true });
    expect(await edit({ svc_user_id: admin.id, description: 'By my own id' })).toEqual({ status: 1, data: true });
    expect(await edit({ svc_user_id: sales.id, name: 'Someone else' })).toMatchObject({ status: 0, code: 'svc_user_id_invalid' });
    expect(await edit({ name: '   ', description: 'Blank name' })).toMatchObject({ status: 0, code: 'name_invalid' });
    const detail = await t.server.api.get(`/api/v1.7/app/${appId}`, { token: master.token });
    // The refused edits changed nothing.
    expect(detail.json().data).toMatchObject({ name: 'By the creator id', description: 'By my own id' });
  });

  it('salesCount counts Sales members across the projects a user created', async () => {
    const res = await t.server.api.get('/svcuser/oauth2/getUserInfoByAccessToken', { token: master.token });
    expect(res.json().salesCount).toBe(1);
  });
});
