// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

/**
 * A project that adds a platform user by id learns neither their phone number nor their e-mail
 * until the user accepts the membership from their own account; the user may also leave.
 */
const t = useTestServer();
let client: TestClient;
let master: TestUser;
let appId: string;

interface ListedMember {
  svcUserId: number;
  accepted: boolean;
  user: { userName: string | null; phoneNum: string | null; email: string | null; onlineStatus: number };
}

const membersUrl = (app: string) => `/api/v1.7/app/${app}/members`;
const accept = (user: TestUser, app: string) => t.server.api.post(`/api/v1.7/user/membership/${app}/accept`, {}, { token: user.token });
const leave = (user: TestUser, app: string) => t.server.api.post(`/api/v1.7/user/membership/${app}/leave`, {}, { token: user.token });

async function listed(token: string, query: Record<string, string> = {}, app = appId): Promise<ListedMember[]> {
  const res = await t.server.api.get(membersUrl(app), { token, query: { count: 100, ...query } });
  expect(res.json().status).toBe(1);
  return res.json().data as ListedMember[];
}

/** An activated user with a mobile number (their username) and an e-mail. */
async function userWithEmail(name: string, email: string): Promise<TestUser> {
  const u = await activeUser(t.server, client, { nickname: name });
  const res = await t.server.api.post('/api/v1.7/user/update', { email }, { token: u.token });
  expect(res.json().status).toBe(1);
  return u;
}

async function add(user: TestUser, app = appId, role = 'Sales') {
  const res = await t.server.api.post(membersUrl(app), { svc_user_id: user.id, role }, { token: master.token });
  expect(res.json().status).toBe(1);
  return res.json().data as { id: string; accepted: boolean };
}

beforeAll(async () => {
  client = await createClient(t.server);
  master = await userWithEmail('Mia Master', 'mia.master@example.com');
  appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Acceptance' }, { token: master.token })).json().data.appId;
});

describe('membership acceptance', () => {
  it('the creator is accepted from the start and listed with their phone number and e-mail', async () => {
    const [owner] = await listed(master.token);
    expect(owner).toMatchObject({ svcUserId: master.id, accepted: true });
    expect(owner?.user.phoneNum).toBe(master.username);
    expect(owner?.user.email).toBe('mia.master@example.com');
  });

  it('a member added by id works at once, but is pending: phone and e-mail masked, keyword matches the name only', async () => {
    const pat = await userWithEmail('Pat Pending', 'pat.pending@example.com');
    const added = await add(pat);
    expect(added.accepted).toBe(false);

    const item = (await listed(master.token)).find((m) => m.svcUserId === pat.id);
    expect(item?.accepted).toBe(false);
    expect(item?.user.userName).toBe('Pat Pending');
    expect(item?.user.phoneNum).toBe(`${pat.username.slice(0, 3)}****${pat.username.slice(-4)}`);
    expect(item?.user.email).toBe('p***@example.com');
    // Pat was just online (userWithEmail used the token), but a project Pat has not accepted does not see it.
    expect(item?.user.onlineStatus).toBe(0);
    // Nothing of the real values anywhere in the answer.
    const raw = (await t.server.api.get(membersUrl(appId), { token: master.token })).body;
    expect(raw).not.toContain(pat.username);
    expect(raw).not.toContain('pat.pending@');

    // A substring search would reveal the number digit by digit: it finds nothing.
    for (const keyword of [pat.username, pat.username.slice(3, 7), 'pat.pending', 'PENDING@EXAMPLE.COM']) {
      expect((await listed(master.token, { keyword })).map((m) => m.svcUserId)).not.toContain(pat.id);
    }
    expect((await listed(master.token, { keyword: 'pat pend' })).map((m) => m.svcUserId)).toEqual([pat.id]);

    // The membership works before acceptance, as the interface says.
    const asPending = await t.server.api.get(membersUrl(appId), { token: pat.token });
    expect(asPending.json().status).toBe(1);
  });

  it('the user lists pending memberships, accepts one, and the project then sees phone and e-mail', async () => {
    const ann = await userWithEmail('Ann Accepts', 'ann.accepts@example.com');
    const own = (await t.server.api.post('/api/v1.7/apps', { name: "Ann's own" }, { token: ann.token })).json().data.appId as string;
    await add(ann, appId, 'Admin');

    const pending = await t.server.api.get('/api/v1.7/user/memberships', { token: ann.token, query: { state: 'pending' } });
    expect(pending.json()).toMatchObject({ status: 1 });
    expect(pending.json().data).toEqual([
      expect.objectContaining({
        appId,
        svcUserId: ann.id,
        role: 'Admin',
        status: 0,
        accepted: false,
        app: { id: appId, name: 'Acceptance', description: null, creatorId: master.id },
      }),
    ]);
    const acceptedBefore = await t.server.api.get('/api/v1.7/user/memberships', { token: ann.token, query: { state: 'accepted' } });
    expect(acceptedBefore.json().data.map((m: { appId: string }) => m.appId)).toEqual([own]);
    const all = await t.server.api.get('/api/v1.7/user/memberships', { token: ann.token });
    expect(
      all
        .json()
        .data.map((m: { appId: string }) => m.appId)
        .sort(),
    ).toEqual([appId, own].sort());

    const res = await accept(ann, appId);
    expect(res.json()).toMatchObject({ status: 1, data: { appId, svcUserId: ann.id, role: 'Admin', accepted: true } });
    const again = await accept(ann, appId);
    expect(again.json()).toMatchObject({ status: 1, data: { accepted: true, id: res.json().data.id } });

    const item = (await listed(master.token)).find((m) => m.svcUserId === ann.id);
    expect(item).toMatchObject({ accepted: true, user: { phoneNum: ann.username, email: 'ann.accepts@example.com' } });
    expect((await listed(master.token, { keyword: ann.username.slice(-6) })).map((m) => m.svcUserId)).toEqual([ann.id]);
    expect((await listed(master.token, { keyword: 'ANN.ACCEPTS@' })).map((m) => m.svcUserId)).toEqual([ann.id]);
    const none = await t.server.api.get('/api/v1.7/user/memberships', { token: ann.token, query: { state: 'pending' } });
    expect(none.json().data).toEqual([]);
  });

  it('a member leaves; added again, they are pending again; the creator cannot leave', async () => {
    const lee = await userWithEmail('Lee Leaves', 'lee.leaves@example.com');
    await add(lee);
    expect((await accept(lee, appId)).json().data.accepted).toBe(true);

    expect((await leave(lee, appId)).json()).toEqual({ status: 1, data: true });
    expect((await listed(master.token)).map((m) => m.svcUserId)).not.toContain(lee.id);
    const outside = await t.server.api.get(membersUrl(appId), { token: lee.token });
    expect(outside.statusCode).toBe(403);
    expect(outside.json().error).toBe('forbidden');
    expect((await leave(lee, appId)).json()).toMatchObject({ status: 0, code: 'member_not_found' });
    expect((await accept(lee, appId)).json()).toMatchObject({ status: 0, code: 'member_not_found' });
    const mine = await t.server.api.get('/api/v1.7/user/memberships', { token: lee.token });
    expect(mine.json().data).toEqual([]);

    // Re-added by the project without asking: masked again until accepted again.
    expect((await add(lee)).accepted).toBe(false);
    const item = (await listed(master.token)).find((m) => m.svcUserId === lee.id);
    expect(item).toMatchObject({ accepted: false, user: { email: 'l***@example.com' } });
    expect(item?.user.phoneNum).not.toBe(lee.username);

    // A pending membership is declined by leaving it.
    expect((await leave(lee, appId)).json()).toEqual({ status: 1, data: true });
    expect((await listed(master.token)).map((m) => m.svcUserId)).not.toContain(lee.id);

    expect((await leave(master, appId)).json()).toMatchObject({ status: 0, code: 'cannot_remove_owner' });
    expect((await listed(master.token)).map((m) => m.svcUserId)).toContain(master.id);
  });

  it('refuses unknown projects, bad states and calls without a token', async () => {
    const u = await activeUser(t.server, client);
    expect((await accept(u, 'no-such-project')).json()).toMatchObject({ status: 0, code: 'app_not_found' });
    expect((await leave(u, 'no-such-project')).json()).toMatchObject({ status: 0, code: 'app_not_found' });
    expect((await accept(u, appId)).json()).toMatchObject({ status: 0, code: 'member_not_found' });
    const bad = await t.server.api.get('/api/v1.7/user/memberships', { token: u.token, query: { state: 'maybe' } });
    expect(bad.json()).toMatchObject({ status: 0, code: 'Bad Request' });
    const anonymous = await t.server.api.get('/api/v1.7/user/memberships');
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.json().error).toBe('access_denied');
    const anonymousAccept = await t.server.api.post(`/api/v1.7/user/membership/${appId}/accept`, {});
    expect(anonymousAccept.statusCode).toBe(403);
  });
});
