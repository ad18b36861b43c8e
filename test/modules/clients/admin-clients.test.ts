// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

// A fresh database per server: the first account made is user 1, the administrator named here.
const t = useTestServer({ ADMIN_USER_IDS: '1, 1' });
let admin: TestUser;
let other: TestUser;

beforeAll(async () => {
  const client = await createClient(t.server);
  admin = await activeUser(t.server, client);
  other = await activeUser(t.server, client);
});

const token = (u: TestUser) => ({ token: u.token });

describe('OAuth clients for the server administrators', () => {
  it('the administrator is the first account', () => {
    expect(admin.id).toBe(1);
    expect(t.server.ctx.config.adminUserIds).toEqual([1]);
  });

  it('tells each signed-in user whether they are an administrator (what the console shows), and no one signed out', async () => {
    expect((await t.server.api.get('/api/v1.7/admin/me', token(admin))).json()).toEqual({ status: 1, data: { admin: true } });
    expect((await t.server.api.get('/api/v1.7/admin/me', token(other))).json()).toEqual({ status: 1, data: { admin: false } });
    expect((await t.server.api.get('/api/v1.7/admin/me')).statusCode).toBe(403);
  });

  it('creates a client with a generated id and secret, shown once, that then authenticates', async () => {
    const res = await t.server.api.post('/api/v1.7/admin/clients', { name: 'Partner CRM' }, token(admin));
    expect(res.json()).toMatchObject({
      status: 1,
      data: { client_id: expect.stringMatching(/^rc_[0-9a-f]{24}$/), client_secret: expect.any(String) },
    });
    const { client_id, client_secret } = res.json().data as { client_id: string; client_secret: string };
    const list = await t.server.api.get('/api/v1.7/admin/clients', token(admin));
    const row = (list.json().data as { client_id: string }[]).find((c) => c.client_id === client_id);
    expect(row).toEqual({ client_id, name: 'Partner CRM', created_at: expect.any(String), revoked: false, console: false });
    // The secret is nowhere in the list.
    expect(list.body).not.toContain(client_secret);
    expect(await t.server.services.clients.verify(client_id, client_secret)).toBe(true);
  });

  it('creates a client with the id and secret given; refuses a taken or malformed id, a short secret, an empty name', async () => {
    const given = { name: 'Carried over', client_id: 'partner.acme-1', client_secret: 'a-partner-secret-0123456789' };
    const res = await t.server.api.post('/api/v1.7/admin/clients', given, token(admin));
    expect(res.json()).toEqual({ status: 1, data: { client_id: 'partner.acme-1', client_secret: 'a-partner-secret-0123456789' } });
    expect(await t.server.services.clients.verify('partner.acme-1', 'a-partner-secret-0123456789')).toBe(true);
    for (const [body, code] of [
      [given, 'client_id_invalid'],
      [{ name: 'x', client_id: 'console' }, 'client_id_invalid'],
      [{ name: 'x', client_id: 'no spaces allowed' }, 'client_id_invalid'],
      [{ name: 'x', client_secret: 'short' }, 'client_secret_invalid'],
      [{ name: '   ' }, 'client_name_invalid'],
    ] as const) {
      const r = await t.server.api.post('/api/v1.7/admin/clients', body, token(admin));
      expect(r.statusCode).toBe(200);
      expect(r.json(), JSON.stringify(body)).toMatchObject({ status: 0, code });
    }
  });

  it('revokes a client: its tokens stop working; an unknown one is client_not_found', async () => {
    const made = (await t.server.api.post('/api/v1.7/admin/clients', { name: 'Short-lived' }, token(admin))).json().data as {
      client_id: string;
      client_secret: string;
    };
    const basic = `Basic ${Buffer.from(`${made.client_id}:${made.client_secret}`).toString('base64')}`;
    const user = await activeUser(t.server, { ...made, basic });
    expect((await t.server.api.get('/api/v1.7/my-apps', token(user))).json().status).toBe(1);
    const res = await t.server.api.delete(`/api/v1.7/admin/clients/${made.client_id}`, token(admin));
    expect(res.json()).toEqual({ status: 1, data: true });
    expect((await t.server.api.get('/api/v1.7/my-apps', token(user))).statusCode).toBe(403);
    const list = (await t.server.api.get('/api/v1.7/admin/clients', token(admin))).json().data as { client_id: string; revoked: boolean }[];
    expect(list.find((c) => c.client_id === made.client_id)?.revoked).toBe(true);
    const unknown = await t.server.api.delete('/api/v1.7/admin/clients/nope', token(admin));
    expect(unknown.json()).toMatchObject({ status: 0, code: 'client_not_found' });
  });

  it('anyone else gets 403 forbidden on every route, and nothing changes', async () => {
    const before = (await t.server.api.get('/api/v1.7/admin/clients', token(admin))).json().data as unknown[];
    for (const res of [
      await t.server.api.get('/api/v1.7/admin/clients', token(other)),
      await t.server.api.post('/api/v1.7/admin/clients', { name: 'Sneaky' }, token(other)),
      await t.server.api.delete('/api/v1.7/admin/clients/partner.acme-1', token(other)),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden' });
    }
    expect((await t.server.api.get('/api/v1.7/admin/clients', token(admin))).json().data).toEqual(before);
    expect((await t.server.api.get('/api/v1.7/admin/clients')).statusCode).toBe(403);
  });
});
