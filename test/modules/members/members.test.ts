// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

const t = useTestServer();
let client: TestClient;
let master: TestUser;
let admin: TestUser;
let appId: string;
const members = () => `/api/v1.7/app/${appId}/members`;

beforeAll(async () => {
  client = await createClient(t.server);
  master = await activeUser(t.server, client, { nickname: 'Mona Master', email: 'mona@example.com' });
  admin = await activeUser(t.server, client, { nickname: 'Adam Admin' });
  appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Members' }, { token: master.token })).json().data.appId;
  await t.server.api.post(members(), { svc_user_id: admin.id, role: 'admin' }, { token: master.token });
});

describe('members', () => {
  it('add answers the member record without list extras', async () => {
    const u = await activeUser(t.server, client);
    const res = await t.server.api.post(members(), { svc_user_id: String(u.id) }, { token: master.token, form: true });
    expect(res.json().status).toBe(1);
    expect(res.json().data).toEqual({
      id: expect.any(String),
      appId,
      svcUserId: u.id,
      conferenceId: null,
      status: 0,
      role: 'Sales',
      createTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      editTime: expect.any(String),
      accepted: false,
    });
  });

  it('adding an existing member changes nothing', async () => {
    const u = await activeUser(t.server, client);
    const first = (await t.server.api.post(members(), { svc_user_id: u.id }, { token: master.token })).json().data;
    const second = await t.server.api.post(members(), { svc_user_id: u.id, role: 'Admin' }, { token: master.token });
    expect(second.json().data).toEqual(first);
  });

  it('only Master makes an Admin; Admin adds Sales; Sales adds nobody', async () => {
    const [a, b, c] = (await Promise.all([0, 1, 2].map(() => activeUser(t.server, client)))) as [TestUser, TestUser, TestUser];
    const byAdmin = await t.server.api.post(members(), { svc_user_id: a.id, role: 'Admin' }, { token: admin.token });
    expect(byAdmin.statusCode).toBe(403);
    const salesByAdmin = await t.server.api.post(members(), { svc_user_id: a.id, role: 'member' }, { token: admin.token });
    expect(salesByAdmin.json().data.role).toBe('Sales');
    const bySales = await t.server.api.post(members(), { svc_user_id: b.id }, { token: a.token });
    expect(bySales.statusCode).toBe(403);
    expect(bySales.json().error).toBe('forbidden');
    const badRole = await t.server.api.post(members(), { svc_user_id: c.id, role: 'Master' }, { token: master.token });
    expect(badRole.json()).toMatchObject({ status: 0, code: 'role_invalid' });
    const noUser = await t.server.api.post(members(), { svc_user_id: 99999999 }, { token: master.token });
    expect(noUser.json()).toMatchObject({ status: 0, code: 'user_not_found' });
    const missing = await t.server.api.post(members(), {}, { token: master.token });
    expect(missing.json()).toMatchObject({ status: 0, code: 'Bad Request' });
  });

  it('lists with postRoles, isOwner and every field of the member user object', async () => {
    const res = await t.server.api.get(members(), { token: admin.token });
    const list = res.json().data;
    const owner = list[0];
    expect(owner).toMatchObject({
      svcUserId: master.id,
      role: 'Master',
      isOwner: true,
      postRoles: ['MarketPost', 'SalesPost'],
      appId,
      status: 0,
    });
    expect(Object.keys(owner.user).sort()).toEqual(
      [
        'id',
        'conferenceId',
        'userId',
        'userName',
        'userPhotoURL',
        'createdAt',
        'updatedAt',
        'phoneNum',
        'phoneStatus',
        'email',
        'onlineStatus',
      ].sort(),
    );
    expect(owner.user).toMatchObject({
      id: master.id,
      userId: master.id,
      userName: 'Mona Master',
      email: 'mona@example.com',
      onlineStatus: 1,
      phoneStatus: 0,
    });
    const adminItem = list.find((m: { svcUserId: number }) => m.svcUserId === admin.id);
    expect(adminItem).toMatchObject({ role: 'Admin', isOwner: false });
  });

  it('gives new members SalesPost, Admins included, unless post_roles sets their posts', async () => {
    const postsOf = async (userId: number) =>
      (
        (await t.server.api.get(members(), { token: master.token, query: { count: 100 } })).json().data as {
          svcUserId: number;
          postRoles: string[];
        }[]
      ).find((m) => m.svcUserId === userId)?.postRoles;
    const add = async (body: Record<string, unknown>) => {
      const u = await activeUser(t.server, client);
      const res = await t.server.api.post(members(), { svc_user_id: u.id, ...body }, { token: master.token, form: true });
      return { u, answer: res.json() as { status: number; code?: string } };
    };
    expect(await postsOf(admin.id)).toEqual(['SalesPost']);
    const both = await add({ role: 'Admin', post_roles: 'SalesPost,MarketPost' });
    expect(await postsOf(both.u.id)).toEqual(['MarketPost', 'SalesPost']);
    const market = await add({ post_roles: '["marketpost"]' });
    expect(await postsOf(market.u.id)).toEqual(['MarketPost']);
    const bad = await add({ post_roles: 'BossPost' });
    expect(bad.answer).toMatchObject({ status: 0, code: 'post_roles_invalid' });
    // Refused before anything was written.
    expect(await postsOf(bad.u.id)).toBeUndefined();
  });

  it('onlineStatus is 0 for a user not seen in the last 5 minutes', async () => {
    const idle = await activeUser(t.server, client, { nickname: 'Idle Ida' });
    await t.server.api.post(members(), { svc_user_id: idle.id }, { token: master.token });
    await t.server.ctx.database.db
      .updateTable('user_presence')
      .set({ last_seen_at: Date.now() - 6 * 60 * 1000 })
      .where('user_id', '=', idle.id)
      .execute();
    const res = await t.server.api.get(members(), { token: master.token, query: { keyword: 'Idle Ida' } });
    expect(res.json().data).toHaveLength(1);
    expect(res.json().data[0].user.onlineStatus).toBe(0);
  });

  it('pages by join time and filters by keyword over name, phone and e-mail', async () => {
    const project = (await t.server.api.post('/api/v1.7/apps', { name: 'Paging' }, { token: master.token })).json().data.appId;
    const added: TestUser[] = [];
    for (let i = 0; i < 5; i++) {
      const u = await activeUser(t.server, client, { nickname: `Pager ${i}`, ...(i === 3 ? { email: `Pager.Three@Example.com` } : {}) });
      await t.server.api.post(`/api/v1.7/app/${project}/members`, { svc_user_id: u.id }, { token: master.token });
      // Phone numbers and e-mails are searched only once the member has accepted.
      expect((await t.server.api.post(`/api/v1.7/user/membership/${project}/accept`, {}, { token: u.token })).json().status).toBe(1);
      added.push(u);
    }
    const url = `/api/v1.7/app/${project}/members`;
    const p1 = (await t.server.api.get(url, { token: master.token, query: { start_index: 0, count: 3 } })).json().data;
    const p2 = (await t.server.api.get(url, { token: master.token, query: { start_index: 3, count: 3 } })).json().data;
    const ids = [...p1, ...p2].map((m: { svcUserId: number }) => m.svcUserId);
    expect(ids).toEqual([master.id, ...added.map((u) => u.id)]);
    const byName = (await t.server.api.get(url, { token: master.token, query: { keyword: 'pager 2' } })).json().data;
    expect(byName.map((m: { svcUserId: number }) => m.svcUserId)).toEqual([added[2]?.id]);
    const byEmail = (await t.server.api.get(url, { token: master.token, query: { keyword: 'pager.three@EXAMPLE' } })).json().data;
    expect(byEmail.map((m: { svcUserId: number }) => m.svcUserId)).toEqual([added[3]?.id]);
    const phone = added[4]?.username.slice(-6) ?? '';
    const byPhone = (await t.server.api.get(url, { token: master.token, query: { keyword: phone } })).json().data;
    expect(byPhone.map((m: { svcUserId: number }) => m.svcUserId)).toEqual([added[4]?.id]);
    const wildcard = (await t.server.api.get(url, { token: master.token, query: { keyword: '%' } })).json().data;
    expect(wildcard).toEqual([]);
    const bads: Record<string, string | number>[] = [{ start_index: -1 }, { count: 0 }, { count: 'ten' }, { start_index: 1.5 }];
    for (const bad of bads) {
      const res = await t.server.api.get(url, { token: master.token, query: bad });
      expect(res.json()).toMatchObject({ status: 0, code: 'Bad Request' });
    }
    const capped = await t.server.api.get(url, { token: master.token, query: { count: 100000 } });
    expect(capped.json().status).toBe(1);
  });

  it('removes by member id or user id; removed members lose access at once; the creator stays', async () => {
    const [x, y] = (await Promise.all([0, 1].map(() => activeUser(t.server, client)))) as [TestUser, TestUser];
    const mx = (await t.server.api.post(members(), { svc_user_id: x.id }, { token: master.token })).json().data;
    await t.server.api.post(members(), { svc_user_id: y.id }, { token: master.token });
    expect((await t.server.api.get(`/api/v1.7/app/${appId}`, { token: x.token })).json().status).toBe(1);
    const byId = await t.server.api.post(`/api/v1.7/app/${appId}/member/${mx.id}`, {}, { token: admin.token });
    expect(byId.json()).toEqual({ status: 1, data: true });
    const after = await t.server.api.get(`/api/v1.7/app/${appId}`, { token: x.token });
    expect(after.statusCode).toBe(403);
    const byUser = await t.server.api.post(`/api/v1.7/app/${appId}/member/${y.id}`, undefined, { token: master.token });
    expect(byUser.json()).toEqual({ status: 1, data: true });
    const again = await t.server.api.post(`/api/v1.7/app/${appId}/member/${y.id}`, undefined, { token: master.token });
    expect(again.json()).toMatchObject({ status: 0, code: 'member_not_found' });
    const creator = await t.server.api.post(`/api/v1.7/app/${appId}/member/${master.id}`, undefined, { token: admin.token });
    expect(creator.json()).toMatchObject({ status: 0, code: 'cannot_remove_owner' });
    const adminByAdmin = await t.server.api.post(`/api/v1.7/app/${appId}/member/${admin.id}`, undefined, { token: admin.token });
    expect(adminByAdmin.statusCode).toBe(403);
    const readded = await t.server.api.post(members(), { svc_user_id: x.id }, { token: master.token });
    expect(readded.json().data).toMatchObject({ id: mx.id, status: 0 });
  });
});
