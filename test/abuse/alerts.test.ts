// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/index.ts';
import { PRIVATE_TARGETS, loopbackForms, startTripwire } from '../helpers/ssrf-forms.ts';
import { type AbuseProject, type AbuseUser, addMember, createProject, readScalar, signUp, underAttack, useAbuseServer } from './harness.ts';

/**
 * Alerts under attack (docs/alerts.md), against `npm start` with WEBHOOK_ALLOW_PRIVATE off:
 * notification channels pointed at this machine in every spelling, another project's manager naming
 * this project's channels, bodies too large for their routes, and a flood of signals (thousands of
 * views of a directed link in a few batches) while another member works: told once per customer and
 * hour, the rest recorded and not told.
 */
const t = useAbuseServer();
let tripwire: Awaited<ReturnType<typeof startTripwire>>;
let owner: AbuseUser;
let sales: AbuseUser;
let stranger: AbuseUser;
let project: AbuseProject;
let other: AbuseProject;
let channelId: string;

const json = { 'content-type': 'application/json' };
async function call(user: AbuseUser, method: string, path: string, body?: unknown) {
  const res = await fetch(`${t.server.base}${path}`, {
    method,
    headers: body === undefined ? user.auth : { ...user.auth, ...json },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : {}) as { status?: number; code?: string; data?: unknown } };
}
const channels = (appId = project.appId) => `/api/v1.7/app/${appId}/notification-channels`;

/** A channel written to the database behind the registration check (as if stored under another setting). */
async function storeChannel(appId: string, createdBy: number, id: string, url: string): Promise<void> {
  const database = createDatabase({ databaseUrl: t.server.env.DATABASE_URL, dataDir: t.server.env.DATA_DIR ?? '' });
  try {
    await database.db
      .insertInto('webhooks')
      .values({
        id,
        app_id: appId,
        url,
        secret: '',
        domain_types: null,
        status: 'active',
        disabled_reason: null,
        cursor: 0,
        created_by: createdBy,
        created_at: Date.now(),
        purpose: 'alerts',
        kind: 'slack',
        options: JSON.stringify({ signals: ['deck_opened', 'mention'], readThreshold: 50, locale: 'en-US', name: null }),
      })
      .execute();
  } finally {
    await database.close();
  }
}

beforeAll(async () => {
  tripwire = await startTripwire();
  [owner, sales, stranger] = await Promise.all([signUp(t.server), signUp(t.server), signUp(t.server)]);
  project = await createProject(t.server, owner, 'Alerts');
  other = await createProject(t.server, stranger, 'Other');
  await addMember(t.server, owner, project.appId, sales);
  // A channel on a public address literal (never reached by these tests: nothing of the project is posted to it).
  const made = await call(owner, 'POST', channels(), { kind: 'webhook', url: 'http://93.184.215.14/rapport-hook', events: 'hot_lead' });
  expect(made.body.status, JSON.stringify(made.body)).toBe(1);
  channelId = (made.body.data as { id: string }).id;
});

afterAll(async () => {
  await tripwire?.close();
});

describe('alerts under attack', () => {
  it('no spelling of a loopback or private address becomes a channel, nor reaches a loopback listener from a stored one', async () => {
    const forms = loopbackForms(tripwire.port);
    const before = await call(owner, 'GET', channels());
    for (const url of [...forms, ...PRIVATE_TARGETS]) {
      expect((await call(owner, 'POST', channels(), { kind: 'slack', url })).body, url).toMatchObject({ status: 0, code: 'url_invalid' });
      expect((await call(owner, 'PUT', `${channels()}/${channelId}`, { url })).body, url).toMatchObject({ status: 0, code: 'url_invalid' });
    }
    expect(await call(owner, 'GET', channels())).toEqual(before);
    // Stored past the check: its test post and its deliveries are refused before a byte is written.
    await storeChannel(project.appId, owner.id, 'stored-loopback', forms[0] as string);
    const tested = await call(owner, 'POST', `${channels()}/stored-loopback/test`);
    expect(tested.body).toMatchObject({ status: 1, data: { ok: false, status: null, error: expect.stringContaining('non-public') } });
    expect(tripwire.connections()).toBe(0);
    expect(tripwire.bytes()).toBe(0);
  });

  it("another project's Master and a Sales member reach none of the project's channels", async () => {
    const before = await call(owner, 'GET', channels());
    for (const path of [`${channels(other.appId)}/${channelId}`, `${channels()}/${channelId}`]) {
      const answers = [
        await call(stranger, 'PUT', path, { url: 'http://93.184.215.14/theirs' }),
        await call(stranger, 'DELETE', path),
        await call(stranger, 'POST', `${path}/test`),
        await call(sales, 'PUT', path, { events: 'mention' }),
        await call(sales, 'DELETE', path),
      ];
      for (const a of answers) {
        if (a.status === 200) expect(a.body).toMatchObject({ status: 0, code: 'channel_not_found' });
        else expect(a.status).toBe(403);
      }
    }
    expect((await call(stranger, 'GET', channels())).status).toBe(403);
    expect((await call(sales, 'GET', channels())).status).toBe(403);
    expect(await call(owner, 'GET', channels())).toEqual(before);
  });

  it('bodies over their route’s limit are refused before they are read', async () => {
    const big = (kb: number) => JSON.stringify({ name: 'x'.repeat(kb * 1024) });
    expect((await call(owner, 'POST', channels(), big(20))).status).toBe(413);
    expect((await call(owner, 'PUT', `${channels()}/${channelId}`, big(20))).status).toBe(413);
    expect((await call(sales, 'PUT', '/api/v1.7/user/notification-settings', big(300))).status).toBe(413);
    expect((await call(sales, 'POST', '/api/v1.7/notifications/read', big(20))).status).toBe(413);
    // Within the limit but beyond what a setting may be: refused with its code.
    const many = Array.from({ length: 201 }, (_, i) => ({ app_id: `p-${i}` }));
    expect((await call(sales, 'PUT', '/api/v1.7/user/notification-settings', { projects: many })).body).toMatchObject({
      code: 'projects_invalid',
    });
    expect(
      (await call(sales, 'PUT', '/api/v1.7/user/notification-settings', { projects: Array.from({ length: 1001 }, () => ({})) })).body,
    ).toMatchObject({ code: 'Bad Request' });
    expect(t.server.alive()).toBe(true);
  });

  it('a flood of views of a directed link is told once, the rest recorded and not told, while another member works', async () => {
    const customer = await call(sales, 'POST', `/api/v1.7/app/${project.appId}/member/${sales.id}/customers`, { name: 'Flooded' });
    const customerId = (customer.body.data as { id: string }).id;
    const link = await call(sales, 'POST', `/api/v1.7/app/${project.appId}/links`, {
      name: 'Deck',
      type: 2,
      website: 'https://example.com/',
      customer_id: customerId,
    });
    const linkId = (link.body.data as { id: string }).id;
    await storeChannel(project.appId, owner.id, 'flood-channel', loopbackForms(tripwire.port)[0] as string);
    const theirCustomer = await call(stranger, 'POST', `/api/v1.7/app/${other.appId}/member/${stranger.id}/customers`, { name: 'Calm' });
    const probe = () => fetch(`${t.server.base}/api/v1.7/notifications/unread-count`, { headers: stranger.auth });
    const when = new Date().toISOString().slice(0, 19).replace('T', ' ');
    const attack = await underAttack(
      t.server,
      async () => {
        for (let batch = 0; batch < 3; batch += 1) {
          const items = Array.from({ length: 1000 }, (_, i) => ({
            event_type: 'create',
            domainType: 'BehaviourLog',
            domainId: `flood-${batch}-${i}`,
            body: {
              customerId,
              action: 'link_view_log',
              when,
              content: JSON.stringify({ linkId, linkType: 2, linkViewLogId: `v-${batch}-${i}`, title: 'Deck', linkSrc: 'link_view' }),
            },
          }));
          const res = await fetch(`${t.server.base}/api/v1.7/app/${project.appId}/events`, {
            method: 'POST',
            headers: { 'x-app-secret': project.secret, ...json },
            body: JSON.stringify(items),
          });
          expect(((await res.json()) as { status: number }).status).toBe(1);
        }
        // Meanwhile another project's member writes as ever.
        const note = await call(
          stranger,
          'POST',
          `/api/v1.7/app/${other.appId}/customer/${(theirCustomer.body.data as { id: string }).id}/notes`,
          { content: 'hi' },
        );
        expect(note.body.status).toBe(1);
        // The evaluator catches up with the feed (every server runs it, every 2 s when idle).
        const deadline = Date.now() + 60_000;
        for (;;) {
          const top = Number(await readScalar(t.server, 'select max(seq) from outbox'));
          const at = Number(await readScalar(t.server, "select position from event_cursors where name = 'alerts'"));
          if (at >= top && top > 0) break;
          if (Date.now() > deadline) throw new Error(`the evaluator did not catch up: ${at} of ${top}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      },
      probe,
    );
    const n = async (sql: string) => Number(await readScalar(t.server, sql, [project.appId]));
    expect(await n("select count(*) from alert_signals where app_id = ? and signal = 'deck_opened'")).toBe(3000);
    expect(await n("select count(*) from alert_signals where app_id = ? and signal = 'deck_opened' and suppressed = 0")).toBe(1);
    expect(await n("select count(*) from notifications where app_id = ? and signal = 'deck_opened'")).toBe(1);
    expect(await n("select count(*) from outbox where app_id = ? and domain_type = 'Alert'")).toBe(1);
    expect(await n("select count(*) from webhook_deliveries where app_id = ? and webhook_id = 'flood-channel'")).toBe(1);
    console.info(
      `3,000 views told once; another user's slowest answer ${Math.round(attack.worstMs)} ms, peak ${Math.round(attack.peakRssMb)} MB`,
    );
    expect(t.server.alive()).toBe(true);
    expect(attack.worstMs).toBeLessThan(1000);
    expect(tripwire.connections()).toBe(0);
  });
});
