// lanes: sqlite postgres
/**
 * Hot leads announced (docs/scoring.md, "Hot leads announced"): a rise written by ingestion that
 * brings a customer's score to at least the project's `hotScore` writes one `Customer` `hot` event in
 * the records' transaction, carried by the feed, at most once per customer and day; a backfill, a
 * recompute and points below the threshold announce nothing. The setting through HTTP; the alerts
 * tell the owner of a hot lead with no reading in progress at once.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { DAY, HOUR, type HistoryProject, customerEvent, event, feedEvents, historyProject, ingest } from '../../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;

const T0 = Date.UTC(2026, 10, 5, 9, 0, 0);
let now = T0;
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const SCORING = () => `/api/v1.7/app/${p.appId}/scoring`;

async function ingestOk(batch: unknown[]) {
  const res = await ingest(t.server, p, batch);
  expect(res.json(), res.body).toMatchObject({ status: 1 });
}

/** A form filled in on the site by the customer at `at` (15 points by default). */
const form = (id: string, customer: string, at: number) =>
  event('BehaviourLog', id, {
    customerId: customer,
    action: 'submit_form',
    when: fmt(at),
    content: JSON.stringify({ url: 'https://example.com/contact', title: 'Contact' }),
  });

/** The project's Customer hot events in the outbox, oldest first. */
async function hotEvents(customerId?: string) {
  let q = t.server.ctx.database.db
    .selectFrom('outbox')
    .select(['domain_id', 'body', 'created_at'])
    .where('app_id', '=', p.appId)
    .where('domain_type', '=', 'Customer')
    .where('event_type', '=', 'hot');
  if (customerId !== undefined) q = q.where('domain_id', '=', customerId);
  const rows = await q.orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.domain_id, body: JSON.parse(r.body) as Record<string, unknown> }));
}

beforeAll(async () => {
  vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);
  p = await historyProject(t.server);
  await ingestOk([
    customerEvent('ha-ada', { svcUserId: String(p.sales.id), name: 'Ada' }),
    customerEvent('ha-bob', { svcUserId: String(p.sales2.id), name: 'Bob' }),
  ]);
  // The alerts start at the feed's end: what follows is theirs to read.
  await t.server.services.alerts.evaluator.pass();
});

afterAll(() => {
  vi.restoreAllMocks();
});

describe('the hot score setting', () => {
  it('is 25 by default, set by PUT …/scoring (hot_score or hotScore, 0 to 100000), refused when wrong', async () => {
    const got = (await t.server.api.get(SCORING(), { token: p.sales.token })).json();
    expect(got.data.hotScore).toBe(25);
    const put = (await t.server.api.put(SCORING(), { hot_score: 20 }, { token: p.admin.token })).json();
    expect(put).toMatchObject({ status: 1, data: { hotScore: 20 } });
    const form = (await t.server.api.put(SCORING(), { hotScore: '20' }, { token: p.admin.token, form: true })).json();
    expect(form.data.hotScore).toBe(20);
    for (const bad of [-1, 100_001, 'many', '1e3', true]) {
      const res = (await t.server.api.put(SCORING(), { hot_score: bad }, { token: p.admin.token })).json();
      expect(res, String(bad)).toMatchObject({ status: 0, code: 'scoring_invalid' });
      expect(res.msg).toContain('hot_score');
    }
    expect((await t.server.api.put(SCORING(), { hot_score: 20 }, { token: p.sales.token })).statusCode).toBe(403);
    // The change of rules scored the customers again (nothing to score yet): no announcement.
    while ((await t.server.services.scoring.recomputeOnce()) !== 0);
    expect(await hotEvents()).toEqual([]);
  });
});

describe('a customer announced as a hot lead', () => {
  it('not below the threshold: a form (15 of 20) announces nothing', async () => {
    now += HOUR;
    await ingestOk([form('ha-f1', 'ha-ada', now - 60_000)]);
    expect(await hotEvents()).toEqual([]);
  });

  it('once the score reaches it: one Customer hot event with the score and its reasons in words, in the feed', async () => {
    now += 10 * 60_000;
    await ingestOk([form('ha-f2', 'ha-ada', now - 60_000)]);
    const events = await hotEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual({
      id: 'ha-ada',
      body: {
        id: 'ha-ada',
        appId: p.appId,
        svcUserId: String(p.sales.id),
        score: 30,
        scoreReasons: ['filled in a form on the site twice today'],
        // The same reasons structured, with the day their words name: any language words them.
        reasonDetails: [
          {
            kind: 'form',
            text: 'filled in a form on the site twice today',
            points: 30,
            count: 2,
            lastAt: fmt(now - 60_000),
            // The first form, ten minutes before (the test above).
            firstAt: fmt(now - 10 * 60_000 - 60_000),
            title: 'Contact',
            url: 'https://example.com/contact',
            when: { kind: 'today', day: fmt(now).slice(0, 10) },
          },
        ],
      },
    });
    const feed = await feedEvents(t.server, p.appId, p.master.token);
    expect(feed.filter((e) => e.event_type === 'hot')).toMatchObject([
      { domainType: 'Customer', domainId: 'ha-ada', body: events[0]?.body },
    ]);
  });

  it('at most once a day: more points the same day announce nothing; a rise the next day announces again', async () => {
    now += HOUR;
    await ingestOk([form('ha-f3', 'ha-ada', now - 60_000)]);
    expect(await hotEvents('ha-ada')).toHaveLength(1);
    now += DAY;
    await ingestOk([form('ha-f4', 'ha-ada', now - 60_000)]);
    const events = await hotEvents('ha-ada');
    expect(events).toHaveLength(2);
    expect(events[1]?.body.scoreReasons).toEqual(['filled in a form on the site 4 times since yesterday']);
  });

  it('at most once a day across a recompute: a weight changed after the announcement, then more points the same day, announce nothing', async () => {
    expect(await hotEvents('ha-ada')).toHaveLength(2);
    now += HOUR;
    const put = (await t.server.api.put(SCORING(), { weights: { form: 16 } }, { token: p.master.token })).json();
    expect(put, JSON.stringify(put)).toMatchObject({ status: 1, data: { hotScore: 20 } });
    while ((await t.server.services.scoring.recomputeOnce()) !== 0);
    // Scored again from her records (forms of 16 points now): still a hot lead, announced today already.
    const ada = (await t.server.api.get('/api/v1.7/customer/ha-ada/detail', { token: p.master.token })).json().data;
    expect(ada.score).toBeGreaterThan(20);
    now += HOUR;
    await ingestOk([form('ha-f6', 'ha-ada', now - 60_000)]);
    expect(await hotEvents('ha-ada')).toHaveLength(2);
  });

  it('not for a backfill: records that happened hours before they were stored raise the score quietly', async () => {
    await ingestOk([form('ha-b1', 'ha-bob', now - 3 * HOUR), form('ha-b2', 'ha-bob', now - 3 * HOUR + 1000)]);
    const bob = (await t.server.api.get('/api/v1.7/customer/ha-bob/detail', { token: p.master.token })).json().data;
    expect(bob.score).toBeGreaterThan(20);
    expect(await hotEvents('ha-bob')).toEqual([]);
  });

  it('not by a recompute of the rules, nor with hot_score 0', async () => {
    const before = (await hotEvents()).length;
    expect(
      (await t.server.api.put(SCORING(), { hot_score: 0, weights: { form: 20 } }, { token: p.master.token })).json().data.hotScore,
    ).toBe(0);
    while ((await t.server.services.scoring.recomputeOnce()) !== 0);
    now += DAY;
    await ingestOk([form('ha-b3', 'ha-bob', now - 60_000)]);
    expect((await hotEvents()).length).toBe(before);
  });

  it("tells the owner in the inbox at once when no reading is in progress: 'Ada is a hot lead'", async () => {
    await t.server.api.put(SCORING(), { hot_score: 20 }, { token: p.master.token });
    while ((await t.server.services.scoring.recomputeOnce()) !== 0);
    const inbox = async () =>
      (
        (await t.server.api.get('/api/v1.7/notifications', { token: p.sales.token })).json().data as {
          signal: string;
          title: string;
          text: string;
          data: Record<string, unknown>;
        }[]
      ).filter((n) => n.signal === 'hot_lead');
    // The announcements above, one a day: one alert each.
    await t.server.services.alerts.evaluator.pass();
    expect(await inbox()).toHaveLength(2);
    now += DAY;
    await ingestOk([form('ha-f5', 'ha-ada', now - 60_000)]);
    await t.server.services.alerts.evaluator.pass();
    const hot = await inbox();
    expect(hot).toHaveLength(3);
    expect(hot[0]?.title).toBe('Ada is a hot lead');
    expect(hot[0]?.text).toContain('filled in a form on the site');
    expect(hot[0]?.data).toMatchObject({ score: expect.any(Number) });
    // In Chinese (a zh-CN member, the chat channels) the reasons are Chinese too, from their structured form.
    const alerts = await t.server.ctx.database.db
      .selectFrom('outbox')
      .select('body')
      .where('app_id', '=', p.appId)
      .where('domain_type', '=', 'Alert')
      .orderBy('created_at', 'desc')
      .execute();
    const words = (JSON.parse(alerts[0]?.body ?? '{}') as { words: Record<string, { title: string; text: string }> }).words;
    expect(words['en-US']?.text).toBe(`Score ${String(hot[0]?.data.score)}: filled in a form on the site 6 times since Thursday`);
    expect(words['zh-CN']).toEqual({
      title: 'Ada 成为热门线索',
      text: `评分 ${String(hot[0]?.data.score)}：自周四起在网站上填写了表单 6 次`,
    });
    // Bob's owner heard nothing of Bob (never announced).
    const bobs = (await t.server.api.get('/api/v1.7/notifications', { token: p.sales2.token })).json().data as unknown[];
    expect(bobs).toEqual([]);
  });
});
