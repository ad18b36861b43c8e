// lanes: sqlite postgres
/**
 * Engagement scores through HTTP (docs/scoring.md): records ingested earn points under the project's
 * rules and the customer's score and reasons show on its detail and list items; the score halves
 * per half-life on the injected clock; a change of the rules by PUT applies to the next records and
 * the job scores the customers again from their records; the list sorts by score, page by page.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { DAY, HOUR, type HistoryProject, customerEvent, event, historyProject, ingest } from '../../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;

/** Thursday 2026-11-05 09:00 UTC: "Monday" is 2026-11-02. */
const T0 = Date.UTC(2026, 10, 5, 9, 0, 0);
let now = T0;
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const MONDAY = Date.UTC(2026, 10, 2, 10, 0, 0);
const WEDNESDAY = Date.UTC(2026, 10, 4, 15, 0, 0);

interface Reason {
  kind: string;
  text: string;
  points: number;
  count: number;
  lastAt: string;
  firstAt: string;
  pages?: number;
  pageCount?: number;
  fileId?: string;
  title?: string;
}
interface Scored {
  id: string;
  score: number;
  scoreReasons: Reason[];
}

const detail = async (id: string, token = p.master.token) =>
  ((await t.server.api.get(`/api/v1.7/customer/${id}/detail`, { token })).json() as { data: Scored }).data;

async function listed(query: Record<string, string | number>, token = p.master.token, who = 'all') {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/${who}/customers`, { token, query });
  return res.json() as { status: number; code?: string; data: Scored[] };
}

async function ingestOk(batch: unknown[]) {
  const res = await ingest(t.server, p, batch);
  expect(res.json(), res.body).toMatchObject({ status: 1 });
}

/** A 10-page file of the project, as an upload leaves it once rendered. */
async function file(id: string, name: string, pages: number) {
  await t.server.ctx.database.db
    .insertInto('files')
    .values({
      id,
      app_id: p.appId,
      name,
      size: 1000,
      mime_type: 'application/pdf',
      page_count: pages,
      status: 'ready',
      version: 1,
      content_id: `${id}-c1`,
      rendered_pages: pages,
      failure: null,
      lease_until: null,
      created_by: p.master.id,
      created_at: T0 - 30 * DAY,
      updated_at: T0 - 30 * DAY,
    })
    .execute();
}

/** A reading of the file's link by the customer: its view log with a Duration per page, and its behaviour records. */
function reading(view: string, customer: string, at: number, pages: number[], ms = 5000) {
  const when = fmt(at);
  return [
    event('LinkViewLog', view, {
      linkId: 'lk-pricing',
      viewTime: when,
      viewerId: customer,
      durations: pages.map((n) => ({ fileId: 'f-pricing', fileName: 'Pricing.pdf', pageIndex: String(n), duration: String(ms) })),
    }),
    event('BehaviourLog', `${view}-open`, {
      customerId: customer,
      action: 'link_view_log',
      when,
      content: JSON.stringify({ linkId: 'lk-pricing', linkViewLogId: view, title: 'Pricing' }),
    }),
    ...pages.map((n, i) =>
      event('BehaviourLog', `${view}-p${n}`, {
        customerId: customer,
        action: 'file_view_duration',
        when: fmt(at + i * 1000),
        content: JSON.stringify({ fileViewDurationId: `${view}:${i}`, linkViewLogId: view }),
      }),
    ),
  ];
}

beforeAll(async () => {
  vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);
  p = await historyProject(t.server);
  await file('f-pricing', 'Pricing', 10);
  await ingestOk([
    customerEvent('sc-reader', { svcUserId: String(p.sales.id), company: 'Acme' }),
    customerEvent('sc-former', { svcUserId: String(p.master.id) }),
    customerEvent('sc-idle', { svcUserId: String(p.master.id) }),
    event('Link', 'lk-pricing', { name: 'Pricing', type: 1, file1: 'f-pricing', creatorId: String(p.sales.id) }),
  ]);
});

afterAll(() => {
  vi.restoreAllMocks();
});

describe('points at write time', () => {
  it('a customer reading 8 of 10 pages of a deck gets the deck-read points and the reason in words', async () => {
    await ingestOk(reading('v-mon', 'sc-reader', MONDAY, [1, 2, 3, 4, 5, 6, 7, 8]));
    const d = await detail('sc-reader');
    // Read on Monday, 3 days before: 10 points halved 3/14 of the way.
    expect(d.score).toBeCloseTo(10 * 2 ** (-(now - MONDAY - 7000) / (14 * DAY)), 1);
    expect(d.scoreReasons).toEqual([
      expect.objectContaining({
        kind: 'deck_read',
        text: "read 8 of 10 pages of 'Pricing' on Monday",
        count: 1,
        pages: 8,
        pageCount: 10,
        fileId: 'f-pricing',
        title: 'Pricing',
      }),
    ]);
  });

  it('a second reading two days later counts again: "twice since Monday"; pages below the share earn nothing', async () => {
    await ingestOk(reading('v-wed', 'sc-reader', WEDNESDAY, [1, 2, 3, 4, 5]));
    // Four pages of ten: under half, no points.
    await ingestOk(reading('v-wed2', 'sc-former', WEDNESDAY, [1, 2, 3, 4]));
    const d = await detail('sc-reader');
    expect(d.scoreReasons[0]).toMatchObject({ kind: 'deck_read', text: "read 8 of 10 pages of 'Pricing' twice since Monday", count: 2 });
    expect(d.score).toBeGreaterThan(15);
    const former = await detail('sc-former');
    expect(former).toMatchObject({ score: 0, scoreReasons: [] });
  });

  it('a return within the days set earns its points; records outside the catalogue and bookkeeping never do', async () => {
    // sc-reader viewed on Monday and Wednesday: the second view was a return.
    const d = await detail('sc-reader');
    expect(d.scoreReasons.find((r) => r.kind === 'return')).toMatchObject({ text: 'came back yesterday', count: 1 });
    await ingestOk([
      event('BehaviourLog', 'idle-unknown', { customerId: 'sc-idle', action: 'something_else', when: fmt(now - HOUR) }),
      event('BehaviourLog', 'idle-call', { customerId: 'sc-idle', action: 'send_message', when: fmt(now - HOUR) }),
    ]);
    expect(await detail('sc-idle')).toMatchObject({ score: 0, scoreReasons: [] });
  });

  it('forms and site key pages earn points once the rules name the pages', async () => {
    await ingestOk([
      event('BehaviourLog', 'form-1', { customerId: 'sc-former', action: 'submit_form', when: fmt(now - 2 * HOUR) }),
      event('BehaviourLog', 'site-1', {
        customerId: 'sc-former',
        action: 'web_page_view',
        when: fmt(now - HOUR),
        content: JSON.stringify({ web_access_log_id: 'visit-1', url: 'https://www.example.com/pricing/plans', title: 'Plans' }),
      }),
    ]);
    // No key page set yet: the page view earns nothing.
    expect((await detail('sc-former')).scoreReasons.map((r) => r.kind)).toEqual(['form']);
    const put = await t.server.api.put(
      `/api/v1.7/app/${p.appId}/scoring`,
      { site_key_pages: ['example.com/pricing'] },
      { token: p.admin.token },
    );
    expect(put.json()).toMatchObject({ status: 1, data: { siteKeyPages: ['example.com/pricing'], recomputing: true } });
    // The same visit's pages count once.
    await ingestOk(
      ['site-2', 'site-3'].map((id) =>
        event('BehaviourLog', id, {
          customerId: 'sc-former',
          action: 'web_page_view',
          when: fmt(now - 30 * 60_000),
          content: JSON.stringify({ web_access_log_id: 'visit-2', url: 'http://example.com/Pricing', title: 'Pricing' }),
        }),
      ),
    );
    const d = await detail('sc-former');
    expect(d.scoreReasons.find((r) => r.kind === 'site_key_page')).toMatchObject({
      text: "visited the key page 'Pricing' (example.com/pricing) today",
      count: 1,
    });
    expect(d.scoreReasons.find((r) => r.kind === 'form')).toMatchObject({ text: 'filled in a form on the site today' });
  });
});

describe('decay and rules', () => {
  it('decays on the clock, without a write: a half-life halves it', async () => {
    const before = (await detail('sc-reader')).score;
    // (Access tokens last a week: the clock moves less.)
    now = T0 + 3 * DAY;
    expect((await detail('sc-reader')).score).toBeCloseTo(before * 2 ** (-3 / 14), 1);
    now = T0;
    const res = await t.server.api.put(`/api/v1.7/app/${p.appId}/scoring`, { half_life_days: 1 }, { token: p.master.token });
    expect(res.json()).toMatchObject({ status: 1, data: { halfLifeDays: 1 } });
    // Before the job has scored the customers again, their scores are read with the new half-life (no key is trusted for it).
    const pending = await detail('sc-reader');
    expect(pending.score).toBeGreaterThan(0);
    expect(pending.score).toBeLessThan(before);
    const hot = await t.server.api.get(`/api/v1.7/app/${p.appId}/hot-leads`, { token: p.master.token });
    expect(hot.json()).toMatchObject({ status: 1 });
    expect(await listed({ sort: 'score' })).toMatchObject({ status: 1 });
    while ((await t.server.services.scoring.recomputeOnce()) > 0);
    const fast = (await detail('sc-reader')).score;
    const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(0.11);
    try {
      now = T0 + DAY;
      near((await detail('sc-reader')).score, fast / 2);
      now = T0 + 2 * DAY;
      near((await detail('sc-reader')).score, fast / 4);
    } finally {
      now = T0;
    }
    await t.server.api.put(`/api/v1.7/app/${p.appId}/scoring`, { half_life_days: 14 }, { token: p.master.token });
    while ((await t.server.services.scoring.recomputeOnce()) > 0);
    expect((await detail('sc-reader')).score).toBeCloseTo(before, 1);
  });

  it('new weights apply to the next records; the job then scores every customer again from the records', async () => {
    const res = await t.server.api.put(`/api/v1.7/app/${p.appId}/scoring`, { weights: { form: 40 } }, { token: p.master.token });
    expect(res.json()).toMatchObject({ status: 1, data: { weights: { form: 40, deck_read: 10 } } });
    const before = (await detail('sc-idle')).score;
    await ingestOk([event('BehaviourLog', 'idle-form', { customerId: 'sc-idle', action: 'submit_form', when: fmt(now) })]);
    expect((await detail('sc-idle')).score - before).toBeCloseTo(40, 1);
    // sc-former's form earned 15 under the old weights; recomputed, 40.
    const formOf = async () => (await detail('sc-former')).scoreReasons.find((r) => r.kind === 'form')?.points ?? 0;
    expect(await formOf()).toBeCloseTo(15 * 2 ** (-(2 * HOUR) / (14 * DAY)), 1);
    while ((await t.server.services.scoring.recomputeOnce()) > 0);
    expect(await formOf()).toBeCloseTo(40 * 2 ** (-(2 * HOUR) / (14 * DAY)), 1);
    expect((await t.server.api.get(`/api/v1.7/app/${p.appId}/scoring`, { token: p.sales.token })).json()).toMatchObject({
      status: 1,
      data: { recomputing: false, weights: { form: 40 } },
    });
    // The reader's readings, recomputed from its records and Duration items, tell the same.
    expect((await detail('sc-reader')).scoreReasons[0]).toMatchObject({ text: "read 8 of 10 pages of 'Pricing' twice since Monday" });
  });

  it('a detail sent back as it is, score and reasons included, is an edit that changes nothing of them', async () => {
    const d = (await t.server.api.get('/api/v1.7/customer/sc-former/detail', { token: p.master.token })).json().data as Scored;
    const res = await t.server.api.put(`/api/v1.7/app/${p.appId}/member/${p.master.id}/customer/sc-former`, d, { token: p.master.token });
    expect(res.json(), res.body).toMatchObject({ status: 1 });
    expect((await detail('sc-former')).score).toBe(d.score);
  });

  it('refuses bad settings with scoring_invalid and changes nothing; Sales may read but not change them', async () => {
    const url = `/api/v1.7/app/${p.appId}/scoring`;
    for (const body of [
      { weights: { form: -1 } },
      { weights: { form: 'lots' } },
      { weights: { nope: 1 } },
      { half_life_days: 0 },
      { half_life_days: 2.5 },
      { deck_share: 1.5 },
      { key_pages: [{ fileId: 'f-pricing', pages: [0] }] },
      { key_pages: 'not json' },
      { site_key_pages: ['/'] },
      { site_key_pages: Array.from({ length: 51 }, (_, i) => `example.com/p${i}`) },
    ]) {
      const res = await t.server.api.put(url, body, { token: p.master.token });
      expect(res.json(), JSON.stringify(body)).toMatchObject({ status: 0, code: 'scoring_invalid' });
    }
    expect((await t.server.api.put(url, {}, { token: p.master.token })).json()).toMatchObject({ status: 0, code: 'Bad Request' });
    expect((await t.server.api.put(url, { weights: { form: 1 } }, { token: p.sales.token })).statusCode).toBe(403);
    const now = (await t.server.api.get(url, { token: p.sales.token })).json() as { data: { weights: { form: number } } };
    expect(now.data.weights.form).toBe(40);
    // A form post, JSON in its fields.
    const form = await t.server.api.put(
      url,
      { half_life_days: '7', weights: JSON.stringify({ mail_click: 2 }) },
      { token: p.master.token, form: true },
    );
    expect(form.json()).toMatchObject({ status: 1, data: { halfLifeDays: 7, weights: { mail_click: 2, form: 40 } } });
  });
});

describe('the list', () => {
  it('shows score and reasons on items and sorts by score, each page seeking on from the last', async () => {
    while ((await t.server.services.scoring.recomputeOnce()) > 0);
    const all = await listed({ sort: 'score', count: 100 });
    expect(all.status).toBe(1);
    const scores = all.data.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(all.data[0]?.scoreReasons.length).toBeGreaterThan(0);
    const paged: string[] = [];
    for (let i = 0; ; i += 2) {
      const page = await listed({ sort: 'score', start_index: i, count: 2 });
      paged.push(...page.data.map((c) => c.id));
      if (page.data.length < 2) break;
    }
    expect(paged).toEqual(all.data.map((c) => c.id));
    const asc = await listed({ sort: 'score', order: 'asc', count: 100 });
    expect(asc.data.map((c) => c.id)).toEqual([...paged].reverse());
    // Sales see their own only, scored as well.
    const own = await listed({ sort: 'score' }, p.sales.token);
    expect(own.data.map((c) => c.id)).toEqual(['sc-reader']);
  });
});
