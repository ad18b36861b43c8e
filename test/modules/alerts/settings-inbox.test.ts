// lanes: sqlite postgres
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EventMessage, writeEvents } from '../../../src/events/outbox.ts';
import { HOT_LEAD_EVENT } from '../../../src/modules/alerts/service.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, feedEvents, historyProject } from '../../helpers/histories.ts';

/**
 * A member's notification settings and the inbox through HTTP: defaults, changes and their refusals,
 * a choice per project; mentions and tasks due become inbox entries (the evaluator's pass), counted
 * unread, marked read one by one or all; another's notification, or one about a customer the member
 * may no longer see, answers as a missing one.
 */
const t = useTestServer();
let p: HistoryProject;
let other: HistoryProject;

interface Notification {
  id: string;
  appId: string;
  projectName: string | null;
  signal: string;
  customerId: string;
  customerName: string | null;
  title: string;
  text: string;
  data: Record<string, unknown>;
  url: string;
  read: boolean;
  readAt: string | null;
}

const SETTINGS = '/api/v1.7/user/notification-settings';
const mention = (id: number, label = 'you') => `@[${label}](member:${id})`;
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

async function settings(token: string) {
  const res = (await t.server.api.get(SETTINGS, { token })).json();
  expect(res.status, JSON.stringify(res)).toBe(1);
  return res.data;
}

async function inbox(token: string, query: Record<string, string | number> = {}): Promise<Notification[]> {
  const res = (await t.server.api.get('/api/v1.7/notifications', { token, query })).json();
  expect(res.status, JSON.stringify(res)).toBe(1);
  return res.data;
}

const unread = async (token: string) =>
  (await t.server.api.get('/api/v1.7/notifications/unread-count', { token })).json().data.unread as number;
const pass = () => t.server.services.alerts.evaluator.pass();

async function note(token: string, customerId: string, content: string) {
  const res = (await t.server.api.post(`/api/v1.7/app/${p.appId}/customer/${customerId}/notes`, { content }, { token })).json();
  expect(res.status, JSON.stringify(res)).toBe(1);
  return res.data as { id: string };
}

beforeAll(async () => {
  p = await historyProject(t.server);
  other = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'i-ada', owner: p.sales.id, name: 'Ada' },
    { id: 'i-bob', owner: p.sales2.id, name: 'Bob' },
  ]);
  await addCustomers(t.server, other, [{ id: 'i-other', owner: other.master.id, name: 'Olga' }]);
  // The evaluator starts at the feed's end: what is written from now on is told.
  await pass();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('notification settings', () => {
  it('answer the defaults until the member changes anything: every signal, the inbox, no e-mail', async () => {
    const s = await settings(p.sales.token);
    expect(s).toMatchObject({
      signals: ['deck_opened', 'deck_read', 'revisit', 'forward', 'hot_lead', 'task_due', 'mention'],
      readThreshold: 50,
      revisitDays: 3,
      inbox: true,
      email: 'off',
      timeZone: 'UTC',
      digestHour: 8,
      locale: 'en-US',
      nextDigestAt: null,
    });
    expect(s.projects).toEqual([
      { appId: p.appId, name: 'Histories', role: 'Sales', scope: 'mine', signals: null, readThreshold: null, revisitDays: null },
    ]);
  });

  it('change the fields given (form or JSON), and set the next digest at the member’s hour in their zone', async () => {
    vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(Date.parse('2026-11-02T03:00:00Z'));
    const res = await t.server.api.put(
      SETTINGS,
      {
        email: 'digest',
        time_zone: 'Asia/Shanghai',
        digest_hour: '9',
        read_threshold: '70',
        revisit_days: '7',
        locale: 'zh-CN',
        signals: 'deck_read,mention',
      },
      { token: p.admin.token, form: true },
    );
    expect(res.json().status, res.body).toBe(1);
    // 09:00 in Shanghai is 01:00 UTC: the next one after 03:00 UTC is tomorrow's.
    expect(res.json().data).toMatchObject({
      email: 'digest',
      timeZone: 'Asia/Shanghai',
      digestHour: 9,
      readThreshold: 70,
      revisitDays: 7,
      locale: 'zh-CN',
      signals: ['deck_read', 'mention'],
      nextDigestAt: '2026-11-03 01:00:00',
    });
    const again = (await t.server.api.put(SETTINGS, { inbox: 0 }, { token: p.admin.token })).json().data;
    expect(again).toMatchObject({ inbox: false, email: 'digest', nextDigestAt: '2026-11-03 01:00:00' });
    const back = (
      await t.server.api.put(
        SETTINGS,
        { inbox: 1, email: 'off', signals: 'deck_opened,deck_read,hot_lead,task_due,mention', locale: 'en-US' },
        { token: p.admin.token },
      )
    ).json().data;
    expect(back).toMatchObject({ inbox: true, email: 'off', nextDigestAt: null });
  });

  it('refuse bad input with its code, changing nothing', async () => {
    const before = await settings(p.sales2.token);
    const cases: [Record<string, unknown>, string][] = [
      [{ signals: 'deck_opened,everything' }, 'signals_invalid'],
      [{ read_threshold: 150 }, 'read_threshold_invalid'],
      [{ revisit_days: 0 }, 'revisit_days_invalid'],
      [{ revisit_days: 91 }, 'revisit_days_invalid'],
      [{ projects: [{ app_id: p.appId, revisit_days: 365 }] }, 'revisit_days_invalid'],
      [{ email: 'weekly' }, 'email_mode_invalid'],
      [{ time_zone: 'Mars/Olympus' }, 'time_zone_invalid'],
      [{ digest_hour: 24 }, 'digest_hour_invalid'],
      [{ locale: 'fr-FR' }, 'locale_invalid'],
      [{ inbox: 2 }, 'Bad Request'],
      [{ digest_hour: 'nine' }, 'Bad Request'],
      [{ projects: 'not json' }, 'projects_invalid'],
      [{ projects: [{ app_id: p.appId, scope: 'everyone' }] }, 'scope_invalid'],
      // Another project's id answers as a missing one.
      [{ projects: [{ app_id: other.appId, scope: 'all' }] }, 'app_not_found'],
      [{ projects: [{ app_id: 'no-such-project' }] }, 'app_not_found'],
      [{ email: 'instant', projects: [{ app_id: other.appId }] }, 'app_not_found'],
    ];
    for (const [body, code] of cases) {
      expect((await t.server.api.put(SETTINGS, body, { token: p.sales2.token })).json(), JSON.stringify(body)).toMatchObject({
        status: 0,
        code,
      });
    }
    expect(await settings(p.sales2.token)).toEqual(before);
    expect((await t.server.api.get(SETTINGS)).statusCode).toBe(403);
  });

  it("keep a choice per project: scope, and signals and a threshold of the project's own", async () => {
    const res = await t.server.api.put(
      SETTINGS,
      { projects: [{ app_id: p.appId, scope: 'all', signals: 'deck_read,revisit', read_threshold: 90, revisit_days: 14 }] },
      { token: p.master.token },
    );
    expect(res.json().data.projects).toEqual([
      {
        appId: p.appId,
        name: 'Histories',
        role: 'Master',
        scope: 'all',
        signals: ['deck_read', 'revisit'],
        readThreshold: 90,
        revisitDays: 14,
      },
    ]);
    const reset = await t.server.api.put(
      SETTINGS,
      { projects: JSON.stringify([{ app_id: p.appId, scope: 'mine' }]) },
      { token: p.master.token, form: true },
    );
    expect(reset.json().data.projects[0]).toMatchObject({ scope: 'mine', signals: null, readThreshold: null, revisitDays: null });
  });
});

describe('the inbox', () => {
  it('gets a mention of the member, naming the project, the customer, the signal and its words', async () => {
    const n = await note(p.sales.token, 'i-ada', `Pricing call went well, ${mention(p.admin.id, 'Boss')} please approve the discount`);
    expect(await unread(p.admin.token)).toBe(0);
    await pass();
    const [entry] = await inbox(p.admin.token);
    expect(entry).toMatchObject({
      appId: p.appId,
      projectName: 'Histories',
      signal: 'mention',
      customerId: 'i-ada',
      customerName: 'Ada',
      read: false,
      data: { noteId: n.id, authorId: p.sales.id, mentionedId: p.admin.id },
    });
    expect(entry?.title).toMatch(/ mentioned you$/);
    expect(entry?.text).toBe('In a note on Ada: “Pricing call went well, @Boss please approve the discount”');
    expect(entry?.url).toBe(`${t.server.ctx.config.publicBaseUrl}/console/p/${p.appId}/customers/i-ada`);
    expect(await unread(p.admin.token)).toBe(1);
    // Passes again, the same events: nothing more.
    await pass();
    expect((await inbox(p.admin.token)).length).toBe(1);
    // The Alert event in the feed carries the words in both languages.
    const alerts = (await feedEvents(t.server, p.appId, p.master.token)).filter((e) => e.domainType === 'Alert');
    expect(alerts.at(-1)).toMatchObject({
      event_type: 'create',
      body: { signal: 'mention', customerId: 'i-ada', svcUserId: String(p.sales.id) },
    });
    expect((alerts.at(-1)?.body.words as Record<string, unknown>)['zh-CN']).toMatchObject({
      text: expect.stringContaining('关于 Ada 的笔记'),
    });
  });

  it('gets a task come due for its assignee, and nothing for those the task does not concern', async () => {
    const soon = Date.now() + 60_000;
    const res = (
      await t.server.api.post(
        `/api/v1.7/app/${p.appId}/tasks`,
        { customer_id: 'i-ada', title: 'Send the quote', due_at: utc(soon) },
        { token: p.sales.token },
      )
    ).json();
    expect(res.status, JSON.stringify(res)).toBe(1);
    vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(soon + 1000);
    await t.server.services.tasks.due.scan();
    await pass();
    const entries = await inbox(p.sales.token);
    expect(entries[0]).toMatchObject({
      signal: 'task_due',
      customerName: 'Ada',
      title: 'Task due: Send the quote',
      data: { taskId: res.data.id },
    });
    expect((await inbox(p.master.token)).filter((e) => e.signal === 'task_due')).toEqual([]);
  });

  it('gets a hot lead once the scoring module announces one (its event, HOT_LEAD_EVENT): its owner, not a manager whose scope is their own', async () => {
    // The scoring module is built apart; its event is written here as it will write it.
    await t.server.ctx.database.db.transaction().execute((trx) =>
      writeEvents(
        trx,
        p.appId,
        [
          {
            event_type: HOT_LEAD_EVENT.eventType as EventMessage['event_type'],
            domainType: HOT_LEAD_EVENT.domainType,
            domainId: 'i-ada',
            body: {
              id: 'i-ada',
              appId: p.appId,
              svcUserId: String(p.sales.id),
              score: 82,
              scoreReasons: ["read 3 of 3 pages of 'Pricing' twice since Monday"],
            },
          },
        ],
        t.server.ctx.clock.now(),
      ),
    );
    await pass();
    const [hot, ...more] = (await inbox(p.sales.token)).filter((e) => e.signal === 'hot_lead');
    expect(more).toEqual([]);
    expect(hot).toMatchObject({
      signal: 'hot_lead',
      customerId: 'i-ada',
      title: 'Ada is a hot lead',
      text: "Score 82: read 3 of 3 pages of 'Pricing' twice since Monday",
    });
    // The Master's scope is `mine` (the previous test reset it): not told.
    expect((await inbox(p.master.token)).filter((e) => e.signal === 'hot_lead')).toEqual([]);
  });

  it('pages and filters: unread only, one project; marks one read, then all', async () => {
    await note(p.master.token, 'i-ada', `${mention(p.admin.id)} one`);
    await note(p.master.token, 'i-ada', `${mention(p.admin.id)} two`);
    await pass();
    const all = await inbox(p.admin.token);
    expect(all.length).toBe(3);
    expect((await inbox(p.admin.token, { count: 2 })).map((e) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    expect((await inbox(p.admin.token, { start_index: 2 })).map((e) => e.id)).toEqual([all[2]?.id]);
    expect((await inbox(p.admin.token, { app_id: p.appId })).length).toBe(3);
    // Another project's id answers as a missing one.
    expect(
      (await t.server.api.get('/api/v1.7/notifications', { token: p.admin.token, query: { app_id: other.appId } })).json(),
    ).toMatchObject({ status: 0, code: 'app_not_found' });
    expect(
      (await t.server.api.post('/api/v1.7/notifications/read', { app_id: other.appId }, { token: p.admin.token })).json(),
    ).toMatchObject({ status: 0, code: 'app_not_found' });
    const one = (await t.server.api.post(`/api/v1.7/notifications/${all[1]?.id}/read`, undefined, { token: p.admin.token })).json();
    expect(one).toMatchObject({ status: 1, data: { id: all[1]?.id, read: true } });
    expect(await unread(p.admin.token)).toBe(2);
    expect((await inbox(p.admin.token, { unread: 1 })).map((e) => e.id)).toEqual([all[0]?.id, all[2]?.id]);
    // Up to a notification: the newer one stays unread.
    const upTo = (await t.server.api.post('/api/v1.7/notifications/read', { until: all[2]?.id }, { token: p.admin.token })).json();
    expect(upTo).toEqual({ status: 1, data: { updated: 1 } });
    expect(await unread(p.admin.token)).toBe(1);
    expect((await t.server.api.post('/api/v1.7/notifications/read', {}, { token: p.admin.token })).json()).toEqual({
      status: 1,
      data: { updated: 1 },
    });
    expect(await unread(p.admin.token)).toBe(0);
  });

  it("answers another member's notification as a missing one", async () => {
    const [mine] = await inbox(p.admin.token);
    for (const token of [p.sales2.token, other.master.token]) {
      expect((await t.server.api.post(`/api/v1.7/notifications/${mine?.id}/read`, undefined, { token })).json()).toMatchObject({
        status: 0,
        code: 'notification_not_found',
      });
      expect((await t.server.api.post('/api/v1.7/notifications/read', { until: mine?.id }, { token })).json()).toMatchObject({
        status: 0,
        code: 'notification_not_found',
      });
    }
    expect((await t.server.api.post('/api/v1.7/notifications/nope/read', undefined, { token: p.admin.token })).json()).toMatchObject({
      code: 'notification_not_found',
    });
  });

  it('drops what the member may no longer see: a customer moved to another owner, a project left', async () => {
    await note(p.admin.token, 'i-bob', `${mention(p.sales2.id)} look at Bob`);
    await pass();
    expect((await inbox(p.sales2.token)).map((e) => e.customerId)).toEqual(['i-bob']);
    const moved = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/customer/batch-app-member-transfers`,
      {
        datas: JSON.stringify([{ customerId: 'i-bob', srouceGroupId: '', srouceSvcUserId: String(p.sales2.id) }]),
        target_svc_userid: p.sales.id,
      },
      { token: p.master.token, form: true },
    );
    expect(moved.json().status, moved.body).toBe(1);
    expect(await inbox(p.sales2.token)).toEqual([]);
    expect(await unread(p.sales2.token)).toBe(0);
    // A removed member's notifications of the project go with the membership.
    const before = (await inbox(p.sales.token)).length;
    expect(before).toBeGreaterThan(0);
    const removed = await t.server.api.post(`/api/v1.7/app/${p.appId}/member/${p.sales.id}`, undefined, { token: p.master.token });
    expect(removed.json().status, removed.body).toBe(1);
    expect(await inbox(p.sales.token)).toEqual([]);
  });
});
