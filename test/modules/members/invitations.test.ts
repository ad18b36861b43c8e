// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient, uniquePhone } from '../../helpers/fixtures.ts';
import { type TestServer, startTestServer, useTestServer } from '../../helpers/harness.ts';
import { startMailbox } from '../../helpers/mailbox.ts';

/**
 * Invitations by e-mail: a Master or Admin invites an address with a role; the link is answered
 * once (and mailed with SMTP); the holder sees what it invites to, signs up through it (sign-up
 * closed or not) or accepts it signed in, once.
 */
const t = useTestServer();
const fromConsole = { origin: 'http://localhost:80' };
let client: TestClient;
let master: TestUser;
let appId: string;

interface Issued {
  id: string;
  email: string;
  role: string;
  url: string;
  expiresAt: string;
}

const invitationsUrl = (app = appId) => `/api/v1.7/app/${app}/invitations`;
const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

async function invite(email: string, role = 'Sales', token = master.token, server: TestServer = t.server, app = appId): Promise<Issued> {
  const res = await server.api.post(invitationsUrl(app), { email, role }, { token });
  expect(res.json(), res.body).toMatchObject({ status: 1 });
  return res.json().data as Issued;
}

const signUp = (token: string, body: Record<string, unknown> = {}, server: TestServer = t.server) =>
  server.api.post(
    '/svcuser/console/invitation-signup',
    { token, nickname: 'Ivy Invited', password: 'a long enough password', ...body },
    {
      headers: fromConsole,
    },
  );

const uniqueEmail = (who: string) => `${who}.${uniquePhone()}@example.com`;

beforeAll(async () => {
  client = await createClient(t.server);
  master = await activeUser(t.server, client, { nickname: 'Mia Master' });
  appId = (await t.server.api.post('/api/v1.7/apps', { name: 'Invited Co' }, { token: master.token })).json().data.appId;
});

describe('making invitations', () => {
  it('answers the link once, in the envelope; the list shows it without the link', async () => {
    const email = uniqueEmail('Sam.Sales');
    const made = await invite(email, 'member');
    expect(made).toMatchObject({ email, role: 'Sales' });
    expect(made.url).toMatch(new RegExp(`^${t.server.ctx.config.publicBaseUrl}/console/invite/[A-Za-z0-9_-]{43}$`));
    const list = (await t.server.api.get(invitationsUrl(), { token: master.token })).json();
    const listed = list.data.find((i: { id: string }) => i.id === made.id);
    expect(listed).toMatchObject({ email, role: 'Sales', invitedBy: master.id });
    expect(JSON.stringify(list)).not.toContain(tokenOf(made.url));
  });

  it('renews a pending invitation of the same address (any case) rather than doubling it: the old link stops working', async () => {
    const email = uniqueEmail('renewed');
    const first = await invite(email);
    const second = await invite(email.toUpperCase(), 'Admin');
    expect(second.id).toBe(first.id);
    expect(second.role).toBe('Admin');
    expect(tokenOf(second.url)).not.toBe(tokenOf(first.url));
    const list = (await t.server.api.get(invitationsUrl(), { token: master.token })).json().data as Issued[];
    expect(list.filter((i) => i.email.toLowerCase() === email.toLowerCase())).toHaveLength(1);
    expect((await t.server.api.get(`/api/v1.7/invitation/${tokenOf(first.url)}`)).json()).toMatchObject({
      status: 0,
      code: 'invitation_not_found',
    });
    expect((await t.server.api.get(`/api/v1.7/invitation/${tokenOf(second.url)}`)).json()).toMatchObject({ status: 1 });
  });

  it('refuses a bad address and a bad role in the documented shape', async () => {
    expect((await t.server.api.post(invitationsUrl(), { email: 'not an address' }, { token: master.token })).json()).toMatchObject({
      status: 0,
      code: 'email_invalid',
    });
    expect((await t.server.api.post(invitationsUrl(), {}, { token: master.token })).json()).toMatchObject({ status: 0 });
    expect(
      (await t.server.api.post(invitationsUrl(), { email: uniqueEmail('x'), role: 'Master' }, { token: master.token })).json(),
    ).toMatchObject({
      status: 0,
      code: 'role_invalid',
    });
  });

  it('takes form fields as well as JSON', async () => {
    const email = uniqueEmail('form');
    const res = await t.server.api.post(invitationsUrl(), { email, role: 'sales' }, { token: master.token, form: true });
    expect(res.json()).toMatchObject({ status: 1, data: { email, role: 'Sales' } });
  });

  it('resends with a new link and revokes: a revoked link answers like an unknown one', async () => {
    const made = await invite(uniqueEmail('resent'));
    const resent = await t.server.api.post(`${invitationsUrl()}/${made.id}/resend`, {}, { token: master.token });
    expect(resent.json()).toMatchObject({ status: 1, data: { id: made.id } });
    const newUrl = resent.json().data.url as string;
    expect(newUrl).not.toBe(made.url);
    expect((await t.server.api.get(`/api/v1.7/invitation/${tokenOf(made.url)}`)).json().code).toBe('invitation_not_found');
    expect((await t.server.api.delete(`${invitationsUrl()}/${made.id}`, { token: master.token })).json()).toEqual({
      status: 1,
      data: true,
    });
    const after = (await t.server.api.get(`/api/v1.7/invitation/${tokenOf(newUrl)}`)).json();
    const unknown = (await t.server.api.get(`/api/v1.7/invitation/${'x'.repeat(43)}`)).json();
    expect(after).toEqual(unknown);
    expect((await t.server.api.delete(`${invitationsUrl()}/${made.id}`, { token: master.token })).json().code).toBe('invitation_not_found');
    const list = (await t.server.api.get(invitationsUrl(), { token: master.token })).json().data as Issued[];
    expect(list.some((i) => i.id === made.id)).toBe(false);
  });
});

describe('accepting', () => {
  it('previews the project, the inviter, the address and the role, nothing else', async () => {
    const email = uniqueEmail('preview');
    const made = await invite(email);
    const res = (await t.server.api.get(`/api/v1.7/invitation/${tokenOf(made.url)}`)).json();
    expect(res).toEqual({
      status: 1,
      data: { projectName: 'Invited Co', inviterName: 'Mia Master', email, role: 'Sales', expiresAt: made.expiresAt },
    });
  });

  it('signs up through the link (sign-up closed): the account signs in with the address, joins with the role, once', async () => {
    const email = uniqueEmail('newcomer');
    const made = await invite(email, 'Admin');
    const res = await signUp(tokenOf(made.url));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'bearer', app_id: appId });
    expect(String(res.headers['set-cookie'])).toContain('rapport_console=');
    const token = res.json().access_token as string;
    const memberships = (await t.server.api.get('/api/v1.7/user/memberships', { token })).json().data;
    expect(memberships).toMatchObject([{ appId, role: 'Admin', accepted: true }]);
    const members = (await t.server.api.get(`/api/v1.7/app/${appId}/members`, { token: master.token, query: { count: 100 } })).json().data;
    expect(members.find((m: { user: { email: string } }) => m.user.email === email)).toMatchObject({ role: 'Admin', accepted: true });
    const signIn = await t.server.api.post(
      '/svcuser/console/session',
      { username: email, password: 'a long enough password' },
      { headers: fromConsole },
    );
    expect(signIn.statusCode).toBe(200);
    const again = await signUp(tokenOf(made.url), { password: 'another long password' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: 'invitation_not_found' });
    expect((await t.server.api.get(`/api/v1.7/invitation/${tokenOf(made.url)}`)).json().code).toBe('invitation_not_found');
  });

  it('refuses a short password without using the link', async () => {
    const made = await invite(uniqueEmail('short'));
    expect((await signUp(tokenOf(made.url), { password: 'short' })).json()).toMatchObject({ error: 'invalid_request' });
    expect((await t.server.api.get(`/api/v1.7/invitation/${tokenOf(made.url)}`)).json().status).toBe(1);
  });

  it('an address that has an account already is told to sign in, and the link still works signed in', async () => {
    const existing = await activeUser(t.server, client, { nickname: 'Ed Existing', email: uniqueEmail('existing'), phoneNum: undefined });
    const made = await invite(existing.username);
    expect((await signUp(tokenOf(made.url))).json()).toMatchObject({ error: 'email_existed' });
    const res = await t.server.api.post(`/api/v1.7/invitation/${tokenOf(made.url)}/accept`, {}, { token: existing.token });
    expect(res.json()).toMatchObject({ status: 1, data: { appId, svcUserId: existing.id, role: 'Sales', accepted: true } });
    const used = await t.server.api.post(`/api/v1.7/invitation/${tokenOf(made.url)}/accept`, {}, { token: existing.token });
    expect(used.json()).toMatchObject({ status: 0, code: 'invitation_not_found' });
  });

  it('of two accepts of one link at once, exactly one wins', async () => {
    const made = await invite(uniqueEmail('race'));
    const a = await activeUser(t.server, client, { nickname: 'A' });
    const b = await activeUser(t.server, client, { nickname: 'B' });
    const results = await Promise.all(
      [a, b].map((u) => t.server.api.post(`/api/v1.7/invitation/${tokenOf(made.url)}/accept`, {}, { token: u.token })),
    );
    expect(results.map((r) => r.json().status).sort()).toEqual([0, 1]);
    const signUps = await Promise.all([0, 1, 2].map(() => signUp(tokenOf((made as Issued).url))));
    expect(signUps.every((r) => r.json().error === 'invitation_not_found')).toBe(true);
  });

  it('of concurrent sign-ups through one link, exactly one makes an account', async () => {
    const made = await invite(uniqueEmail('signup.race'));
    const results = await Promise.all([0, 1, 2, 3].map(() => signUp(tokenOf(made.url))));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 200)) {
      expect(['invitation_not_found', 'email_existed']).toContain(r.json().error);
    }
  });

  it('an expired link answers like an unknown one; resending revives it', async () => {
    const made = await invite(uniqueEmail('expired'));
    await t.server.ctx.database.db
      .updateTable('invitations')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', made.id)
      .where('app_id', '=', appId)
      .execute();
    expect((await t.server.api.get(`/api/v1.7/invitation/${tokenOf(made.url)}`)).json().code).toBe('invitation_not_found');
    expect((await signUp(tokenOf(made.url))).json()).toMatchObject({ error: 'invitation_not_found' });
    const list = (await t.server.api.get(invitationsUrl(), { token: master.token })).json().data as Issued[];
    expect(list.some((i) => i.id === made.id)).toBe(false);
    const resent = (await t.server.api.post(`${invitationsUrl()}/${made.id}/resend`, {}, { token: master.token })).json();
    expect((await t.server.api.get(`/api/v1.7/invitation/${tokenOf(resent.data.url)}`)).json().status).toBe(1);
  });
});

describe('who may invite', () => {
  it('a Sales member gets forbidden; an Admin invites Sales but not Admin', async () => {
    const sales = await activeUser(t.server, client, { nickname: 'Sal' });
    const admin = await activeUser(t.server, client, { nickname: 'Ada' });
    await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: sales.id }, { token: master.token });
    await t.server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: admin.id, role: 'Admin' }, { token: master.token });
    const refused = await t.server.api.post(invitationsUrl(), { email: uniqueEmail('by.sales') }, { token: sales.token });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: 'forbidden' });
    expect((await t.server.api.get(invitationsUrl(), { token: sales.token })).statusCode).toBe(403);
    await invite(uniqueEmail('by.admin'), 'Sales', admin.token);
    const asAdmin = await t.server.api.post(
      invitationsUrl(),
      { email: uniqueEmail('admin.by.admin'), role: 'Admin' },
      { token: admin.token },
    );
    expect(asAdmin.statusCode).toBe(403);
  });
});

describe('invitations by e-mail', () => {
  let box: Awaited<ReturnType<typeof startMailbox>>;
  let server: TestServer;
  beforeAll(async () => {
    box = await startMailbox();
    server = await startTestServer({ SMTP_URL: `smtp://127.0.0.1:${box.port}`, SMTP_FROM: 'Rapport <team@example.com>' });
  });
  afterAll(async () => {
    await server?.close();
    await box?.close();
  });

  it('mails the link, the project and who invites; resend mails the new link', async () => {
    const mailClient = await createClient(server);
    const owner = await activeUser(server, mailClient, { nickname: 'Olga Owner' });
    const app = (await server.api.post('/api/v1.7/apps', { name: 'Mailed Co' }, { token: owner.token })).json().data.appId as string;
    const email = uniqueEmail('mailed');
    const made = await invite(email, 'Sales', owner.token, server, app);
    const [mail] = await box.waitFor(1);
    expect(mail?.to).toEqual([email]);
    expect(mail?.mail.subject).toBe('Olga Owner invited you to Mailed Co on Rapport');
    expect(mail?.mail.text).toContain(made.url);
    const resent = (await server.api.post(`${invitationsUrl(app)}/${made.id}/resend`, {}, { token: owner.token })).json().data as Issued;
    const mails = await box.waitFor(2);
    expect(mails[1]?.mail.text).toContain(resent.url);
    expect(mails[1]?.mail.text).not.toContain(made.url);
  });
});
