// lanes: sqlite postgres
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, historyProject } from '../../helpers/histories.ts';
import { startMailbox } from '../../helpers/mailbox.ts';
import { freePort } from '../../helpers/process.ts';

/**
 * Alert e-mails to a real SMTP server in-process: an instant mail per alert for a member who asked
 * for it, a daily digest at a member's local hour (once a day, their lines grouped by project, what
 * they may no longer see left out), nothing for a member without e-mail settings; the clock is moved
 * by the test.
 */
const smtpPort = await freePort();
const t = useTestServer({
  PUBLIC_BASE_URL: 'https://rapport.example',
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  SMTP_FROM: 'Rapport <alerts@rapport.example>',
});
let box: Awaited<ReturnType<typeof startMailbox>>;
let p: HistoryProject;
let now = Date.parse('2026-11-02T00:30:00Z');

const SETTINGS = '/api/v1.7/user/notification-settings';
const pass = () => t.server.services.alerts.evaluator.pass();
const mail = () => t.server.services.alerts.mail;

async function mention(customerId: string, who: number, text: string) {
  const res = await t.server.api.post(
    `/api/v1.7/app/${p.appId}/customer/${customerId}/notes`,
    { content: `${text} @[you](member:${who})` },
    { token: p.master.token },
  );
  expect(res.json().status, res.body).toBe(1);
}

beforeAll(async () => {
  box = await startMailbox(smtpPort);
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'm-ada', owner: p.sales.id, name: 'Ada' },
    { id: 'm-bob', owner: p.sales2.id, name: 'Bob' },
  ]);
  const db = t.server.ctx.database.db;
  for (const [user, email] of [
    [p.sales, 'sales.person@example.com'],
    [p.sales2, 'sales.two@example.com'],
    [p.admin, 'admin.person@example.com'],
  ] as const) {
    await db.updateTable('users').set({ email }).where('id', '=', user.id).execute();
  }
  await pass();
});

afterAll(async () => {
  await box.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});
const useClock = () => vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);

describe('alert e-mails', () => {
  it('an instant mail per alert, for the member who asked for it; none for those who did not', async () => {
    expect((await t.server.api.put(SETTINGS, { email: 'instant' }, { token: p.sales.token })).json().data.email).toBe('instant');
    await mention('m-ada', p.sales.id, 'Ada signed');
    await mention('m-bob', p.sales2.id, 'Bob called');
    await pass();
    expect(await mail().sendInstant()).toBe(1);
    const [got] = await box.waitFor(1);
    expect(got?.to).toEqual(['sales.person@example.com']);
    expect(got?.mail.subject).toMatch(/ mentioned you$/);
    expect(got?.mail.text).toContain('In a note on Ada: “Ada signed @you”');
    expect(got?.mail.text).toContain(`https://rapport.example/console/p/${p.appId}/customers/m-ada`);
    expect(got?.mail.from?.text).toContain('alerts@rapport.example');
    expect(got?.mail.headers.get('auto-submitted')).toBe('auto-generated');
    // Sent once: the next tick has nothing.
    expect(await mail().sendInstant()).toBe(0);
    expect(box.inbox.length).toBe(1);
  });

  it('a daily digest at the member’s local hour, once a day, in their language, without what they may no longer see', async () => {
    useClock();
    // 09:00 in Shanghai is 01:00 UTC; it is 00:30 UTC.
    const res = await t.server.api.put(
      SETTINGS,
      { email: 'digest', time_zone: 'Asia/Shanghai', digest_hour: 9, locale: 'zh-CN' },
      { token: p.sales2.token },
    );
    expect(res.json().data.nextDigestAt).toBe('2026-11-02 01:00:00');
    await mention('m-bob', p.sales2.id, 'first');
    await mention('m-bob', p.sales2.id, 'second');
    await pass();
    // Not the digest's hour yet; and no instant mail for a digest member.
    expect(await mail().sendDigests()).toBe(0);
    expect(await mail().sendInstant()).toBe(0);
    now = Date.parse('2026-11-02T01:00:30Z');
    expect(await mail().sendDigests()).toBe(1);
    const digest = (await box.waitFor(2))[1];
    expect(digest?.to).toEqual(['sales.two@example.com']);
    expect(digest?.mail.subject).toBe('Rapport 每日摘要：2 条提醒');
    expect(digest?.mail.text).toContain('Histories');
    expect(digest?.mail.text).toContain('2026-11-02 08:');
    expect(digest?.mail.text).toContain('在笔记中提到了你');
    // Once a day: not again the same day, and not tomorrow without new lines.
    expect(await mail().sendDigests()).toBe(0);
    now = Date.parse('2026-11-03T01:00:30Z');
    expect(await mail().sendDigests()).toBe(0);
    expect(box.inbox.length).toBe(2);
    // A line about a customer moved away before the digest is left out.
    await mention('m-bob', p.sales2.id, 'third');
    await pass();
    const moved = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/customer/batch-app-member-transfers`,
      {
        datas: JSON.stringify([{ customerId: 'm-bob', srouceGroupId: '', srouceSvcUserId: String(p.sales2.id) }]),
        target_svc_userid: p.sales.id,
      },
      { token: p.master.token, form: true },
    );
    expect(moved.json().status, moved.body).toBe(1);
    now = Date.parse('2026-11-04T01:00:30Z');
    expect(await mail().sendDigests()).toBe(0);
    expect(box.inbox.length).toBe(2);
    const left = await t.server.ctx.database.db
      .selectFrom('notifications')
      .select('mail_status')
      .where('app_id', '=', p.appId)
      .where('user_id', '=', p.sales2.id)
      .execute();
    // The first test's mention (e-mail off then): inbox only.
    expect(left.map((r) => r.mail_status).sort()).toEqual(['dropped', 'none', 'sent', 'sent']);
  });

  it('an instant mail about a customer the member may no longer see is dropped, not sent', async () => {
    await t.server.api.put(SETTINGS, { email: 'instant' }, { token: p.sales2.token });
    await addCustomers(t.server, p, [{ id: 'm-cy', owner: p.sales2.id, name: 'Cy' }]);
    await mention('m-cy', p.sales2.id, 'about Cy');
    await pass();
    const removed = await t.server.api.post(`/api/v1.7/app/${p.appId}/member/${p.sales2.id}`, undefined, { token: p.master.token });
    expect(removed.json().status, removed.body).toBe(1);
    expect(await mail().sendInstant()).toBe(1);
    expect(box.inbox.length).toBe(2);
    const row = await t.server.ctx.database.db
      .selectFrom('notifications')
      .select(['mail_status', 'mail_error'])
      .where('app_id', '=', p.appId)
      .where('customer_id', '=', 'm-cy')
      .executeTakeFirst();
    expect(row).toEqual({ mail_status: 'dropped', mail_error: 'no longer visible to the member' });
  });
});
