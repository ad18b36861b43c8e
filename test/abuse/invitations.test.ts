// lanes: sqlite postgres
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AbuseProject, type AbuseUser, addMember, createProject, readScalar, signUp, useAbuseServer } from './harness.ts';

/**
 * Invitations under attack (docs/projects.md, "Invitations"): a Sales member trying to invite, a
 * manager of another project naming this project's invitations, guessed and spent links, oversized
 * bodies, and a project used to send invitation mail in bulk.
 */
const PER_MINUTE = 5;
const t = useAbuseServer({ RATE_LIMIT_INVITATIONS: String(PER_MINUTE) });
let owner: AbuseUser;
let sales: AbuseUser;
let stranger: AbuseUser;
let project: AbuseProject;
let other: AbuseProject;

const json = { 'content-type': 'application/json' };
const inviteAs = (user: AbuseUser, appId: string, body: unknown) =>
  fetch(`${t.server.base}/api/v1.7/app/${appId}/invitations`, {
    method: 'POST',
    headers: { ...user.auth, ...json },
    body: JSON.stringify(body),
  });
const lookup = (token: string) => fetch(`${t.server.base}/api/v1.7/invitation/${token}`);
const accept = (user: AbuseUser, token: string) =>
  fetch(`${t.server.base}/api/v1.7/invitation/${token}/accept`, { method: 'POST', headers: user.auth });
const signUpWith = (token: string, extra: Record<string, unknown> = {}) =>
  fetch(`${t.server.base}/svcuser/console/invitation-signup`, {
    method: 'POST',
    headers: { ...json, origin: t.server.base },
    body: JSON.stringify({ token, nickname: 'Mallory', password: 'a long enough password', ...extra }),
  });
const count = async (appId: string) => Number(await readScalar(t.server, 'select count(*) from invitations where app_id = ?', [appId]));
const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

beforeAll(async () => {
  owner = await signUp(t.server);
  sales = await signUp(t.server);
  stranger = await signUp(t.server);
  project = await createProject(t.server, owner, 'Invited');
  other = await createProject(t.server, stranger, 'Other');
  await addMember(t.server, owner, project.appId, sales);
});

describe('invitations under attack', () => {
  it('a Sales member cannot invite, list, resend or revoke: 403 forbidden, nothing stored', async () => {
    const made = (await (await inviteAs(owner, project.appId, { email: 'listed@example.com' })).json()) as { data: { id: string } };
    const before = await count(project.appId);
    const base = `${t.server.base}/api/v1.7/app/${project.appId}/invitations`;
    const answers = [
      await inviteAs(sales, project.appId, { email: 'friend@example.com', role: 'Admin' }),
      await fetch(base, { headers: sales.auth }),
      await fetch(`${base}/${made.data.id}/resend`, { method: 'POST', headers: sales.auth }),
      await fetch(`${base}/${made.data.id}`, { method: 'DELETE', headers: sales.auth }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'forbidden' });
    }
    expect(await count(project.appId)).toBe(before);
  });

  it("another project's manager cannot reach this project's invitations, by either project's path", async () => {
    const made = (await (await inviteAs(owner, project.appId, { email: 'cross@example.com' })).json()) as {
      data: { id: string; url: string };
    };
    const own = `${t.server.base}/api/v1.7/app/${other.appId}/invitations/${made.data.id}`;
    for (const res of [
      await fetch(`${own}/resend`, { method: 'POST', headers: stranger.auth }),
      await fetch(own, { method: 'DELETE', headers: stranger.auth }),
    ]) {
      expect(await res.json()).toMatchObject({ status: 0, code: 'invitation_not_found' });
    }
    const theirs = `${t.server.base}/api/v1.7/app/${project.appId}/invitations/${made.data.id}`;
    expect((await fetch(theirs, { method: 'DELETE', headers: stranger.auth })).status).toBe(403);
    const list = (await (await fetch(`${t.server.base}/api/v1.7/app/${other.appId}/invitations`, { headers: stranger.auth })).json()) as {
      data: unknown[];
    };
    expect(list.data).toEqual([]);
    // The link still works: nothing was revoked or renewed.
    expect(((await (await lookup(tokenOf(made.data.url))).json()) as { status: number }).status).toBe(1);
  });

  it('guessed tokens answer exactly as revoked, expired and used ones do, and join nobody', async () => {
    const revoked = (await (await inviteAs(owner, project.appId, { email: 'revoked@example.com' })).json()) as {
      data: { id: string; url: string };
    };
    await fetch(`${t.server.base}/api/v1.7/app/${project.appId}/invitations/${revoked.data.id}`, { method: 'DELETE', headers: owner.auth });
    const used = (await (await inviteAs(owner, project.appId, { email: 'used@example.com' })).json()) as { data: { url: string } };
    expect((await signUpWith(tokenOf(used.data.url))).status).toBe(200);
    const spent = [tokenOf(revoked.data.url), tokenOf(used.data.url)];
    const guesses = Array.from({ length: 8 }, () => randomBytes(32).toString('base64url'));
    const bodies = new Set<string>();
    const signUps = new Set<string>();
    for (const token of [...spent, ...guesses, 'x', '..%2F..%2Fetc']) {
      bodies.add(await (await lookup(token)).text());
      const joined = await accept(stranger, token);
      expect(await joined.json()).toMatchObject({ status: 0, code: 'invitation_not_found' });
      const made = await signUpWith(token);
      expect(made.status).toBe(400);
      signUps.add(await made.text());
    }
    expect([...bodies]).toHaveLength(1);
    expect(JSON.parse([...bodies][0] as string)).toMatchObject({ status: 0, code: 'invitation_not_found' });
    expect([...signUps]).toHaveLength(1);
    // A token no link can have is refused as bad input, in the documented shape.
    for (const res of [await lookup('%00'), await accept(stranger, '%00')]) {
      expect(res.status).toBeLessThan(500);
      expect(await res.json()).toMatchObject({ status: 0 });
    }
    const members = Number(
      await readScalar(t.server, 'select count(*) from members where app_id = ? and user_id = ?', [project.appId, stranger.id]),
    );
    expect(members).toBe(0);
  });

  it('refuses oversized bodies with 413 before reading them, and stores nothing', async () => {
    const before = await count(project.appId);
    const big = await inviteAs(owner, project.appId, { email: `${'a'.repeat(64 * 1024)}@example.com` });
    expect(big.status).toBe(413);
    const huge = await signUpWith('whatever', { nickname: 'n'.repeat(512 * 1024) });
    expect(huge.status).toBe(413);
    const long = await inviteAs(owner, project.appId, { email: `${'a'.repeat(300)}@example.com` });
    expect(await long.json()).toMatchObject({ status: 0 });
    expect(await count(project.appId)).toBe(before);
  });

  it(`makes at most RATE_LIMIT_INVITATIONS links a minute per project: then 429 rate_limited with Retry-After`, async () => {
    const spam = await createProject(t.server, owner, 'Spam');
    const answers: Response[] = [];
    for (let i = 0; i < PER_MINUTE + 2; i++) answers.push(await inviteAs(owner, spam.appId, { email: `victim${i}@example.com` }));
    expect(answers.slice(0, PER_MINUTE).every((r) => r.status === 200)).toBe(true);
    const refused = answers[PER_MINUTE] as Response;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ status: 0, code: 'rate_limited' });
    expect(await count(spam.appId)).toBe(PER_MINUTE);
    // Another project's budget is its own.
    const fresh = await createProject(t.server, owner, 'Fresh');
    expect((await inviteAs(owner, fresh.appId, { email: 'welcome@example.com' })).status).toBe(200);
  });
});
