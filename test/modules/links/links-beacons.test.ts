// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { Browser, type LinkData, count, madeLink, renderedFile } from '../../helpers/links.ts';

/**
 * The viewer's beacons over HTTP: a view starts with `open`, dwell per page grows with later
 * beacons within what the wall clock allows, a leave or silence closes it, a reload continues it;
 * bad beacons (malformed, forged, replayed, out of order, oversized, another link's) are refused or
 * ignored and leave no partial rows.
 */
const t = useTestServer();
let p: HistoryProject;
let fileId: string;
let link: LinkData;
let other: LinkData;

beforeAll(async () => {
  p = await historyProject(t.server);
  fileId = await renderedFile(t.server, p, p.sales.token);
  link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Beacons', file_id: fileId, tags: ['pricing'] });
  other = await madeLink(t.server, p.appId, p.sales.token, { name: 'Other', file_id: fileId });
});

interface ViewLog {
  id: string;
  viewerId: string;
  leaveTime: string | null;
  totalDuration: number;
  totalPage: number;
  durations: { pageIndex: string; duration: string; sortIndex: number; total: number }[];
}

const viewLogs = async (linkId: string) =>
  ((await t.server.api.get(`/api/v1.7/link/${linkId}/view-logs`, { token: p.master.token })).json() as { data: ViewLog[] }).data;

/** Everything a view's beacons may write, to compare before and after a refused or ignored one. */
async function snapshot() {
  const db = t.server.ctx.database.db;
  return {
    views: await db.selectFrom('link_view_logs').selectAll().where('app_id', '=', p.appId).orderBy('id').execute(),
    durations: await db
      .selectFrom('link_view_durations')
      .selectAll()
      .where('app_id', '=', p.appId)
      .orderBy('link_view_log_id')
      .orderBy('position')
      .execute(),
    behaviours: await count(t.server, 'behaviour_logs'),
    outbox: await count(t.server, 'outbox'),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a view', () => {
  let b: Browser;
  let token: string;

  it('starts with the open beacon: one view log, counted on the link, its first page begun', async () => {
    b = new Browser(t.server);
    token = (await b.open(link.shareToken)).viewToken as string;
    const res = await b.beacon(link.shareToken, { type: 'open', seq: 1, token, page: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 1, data: { counted: true, token, seq: 1 } });
    const [log] = await viewLogs(link.id);
    expect(log).toMatchObject({ leaveTime: null, totalDuration: 0, totalPage: 1, viewerId: b.cookies.get('rapport_visitor') });
    expect(log?.durations).toMatchObject([{ pageIndex: '1', duration: '0', sortIndex: 0 }]);
    const listed = ((await t.server.api.get(`/api/v1.7/app/${p.appId}/links`, { token: p.sales.token })).json() as { data: LinkData[] })
      .data;
    expect(listed.find((l) => l.id === link.id)).toMatchObject({ linkViewLogCount: 1, viewerCount: 1, newViewCount: 1 });
    // The same open again (a retry) is the same view.
    const again = await b.beacon(link.shareToken, { type: 'open', seq: 1, token, page: 1 });
    expect(again.json()).toMatchObject({ status: 1, data: { counted: true, token } });
    expect(await viewLogs(link.id)).toHaveLength(1);
  });

  it('announces a visitor not yet known opening the link: one LinkView event, no behaviour record', async () => {
    const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/events`, { token: p.master.token, query: { count: 1000 } });
    const events = (res.json().data as { events: { event_type: string; domainType: string; domainId: string; body: unknown }[] }).events;
    const [log] = await viewLogs(link.id);
    const opens = events.filter((e) => e.domainType === 'LinkView');
    expect(opens).toEqual([
      {
        id: expect.any(String),
        event_type: 'create',
        domainType: 'LinkView',
        domainId: log?.id,
        body: {
          id: log?.id,
          appId: p.appId,
          linkId: link.id,
          linkName: 'Beacons',
          linkType: 1,
          svcUserId: p.sales.id,
          viewerId: b.cookies.get('rapport_visitor'),
          customerId: null,
          viewTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
          location: null, // no GEOIP_DB here
          system: 'iOS 17.4',
          client: expect.any(String),
        },
        createdAt: expect.any(String),
      },
    ]);
    expect(events.filter((e) => e.domainType === 'BehaviourLog')).toEqual([]);
  });

  it('grows with heartbeats and page turns, as text/plain or application/json', async () => {
    await sleep(1200);
    const hb = await b.beacon(link.shareToken, { type: 'hb', seq: 2, token, page: 1, dwell: { 1: 1000 } });
    expect(hb.json()).toEqual({ status: 1, data: { accepted: true } });
    await sleep(700);
    const turn = await b.beacon(link.shareToken, { type: 'page', seq: 3, token, page: 2, dwell: { 1: 1500 } }, 'application/json');
    expect(turn.json()).toEqual({ status: 1, data: { accepted: true } });
    const [log] = await viewLogs(link.id);
    expect(log?.durations.map((d) => [d.pageIndex, Number(d.duration)])).toEqual([
      ['1', 1500],
      ['2', 0],
    ]);
    expect(log).toMatchObject({ totalDuration: 1500, totalPage: 2, leaveTime: null });
  });

  it('caps what a beacon claims by the wall time since the previous one', async () => {
    // The previous beacon is stamped by the server after `before`, so the cap is at most the time
    // since `before` plus the slack, however slowly the machine runs.
    const before = Date.now();
    const previous = await b.beacon(link.shareToken, { type: 'hb', seq: 4, token, page: 2, dwell: { 1: 1500 } });
    expect(previous.json()).toEqual({ status: 1, data: { accepted: true } });
    await sleep(300);
    const res = await b.beacon(link.shareToken, { type: 'hb', seq: 5, token, page: 2, dwell: { 1: 1500, 2: 3_600_000 } });
    expect(res.json()).toEqual({ status: 1, data: { accepted: true } });
    const page2 = Number((await viewLogs(link.id))[0]?.durations[1]?.duration);
    // At most the time since the last beacon plus two seconds of slack: never the hour claimed.
    expect(page2).toBeGreaterThan(0);
    expect(page2).toBeLessThanOrEqual(Date.now() - before + 2000 + 50);
  });

  it('ignores a replayed beacon and one overtaken by a later one: nothing changes', async () => {
    const before = await snapshot();
    for (const body of [
      { type: 'hb', seq: 5, token, page: 2, dwell: { 1: 99_999, 2: 99_999 } },
      { type: 'hb', seq: 2, token, page: 1, dwell: { 1: 50_000 } },
      { type: 'leave', seq: 1, token, page: 3, dwell: { 3: 5000 } },
    ]) {
      const res = await b.beacon(link.shareToken, body);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 1, data: { duplicate: true } });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('closes on leave; a later beacon (back from the back-forward cache) reopens it', async () => {
    await sleep(200);
    const leave = await b.beacon(link.shareToken, { type: 'leave', seq: 6, token, page: 2, dwell: { 1: 1500, 2: 2200 } });
    expect(leave.json()).toEqual({ status: 1, data: { accepted: true } });
    const [closed] = await viewLogs(link.id);
    expect(closed?.leaveTime).not.toBeNull();
    const state = await t.server.ctx.database.db
      .selectFrom('link_view_logs')
      .where('app_id', '=', p.appId)
      .select(['closed_at', 'left_at'])
      .where('id', '=', closed?.id as string)
      .executeTakeFirstOrThrow();
    expect(state.closed_at).not.toBeNull();
    await b.beacon(link.shareToken, { type: 'hb', seq: 7, token, page: 2, dwell: { 1: 1500, 2: 2300 } });
    const reopened = await t.server.ctx.database.db
      .selectFrom('link_view_logs')
      .where('app_id', '=', p.appId)
      .select(['closed_at', 'left_at'])
      .where('id', '=', closed?.id as string)
      .executeTakeFirstOrThrow();
    expect(reopened.closed_at).toBeNull();
    expect(reopened.left_at).toBe(state.left_at);
  });

  it('a reload within 30 minutes continues the same view: same view log, the read time handed back', async () => {
    const page = await b.open(link.shareToken);
    expect(page.viewToken).not.toBe(token);
    const res = await b.beacon(link.shareToken, { type: 'open', seq: 1, token: page.viewToken, page: 1 });
    const data = (
      res.json() as { data: { counted: boolean; continued?: boolean; token: string; seq: number; dwell: Record<string, number> } }
    ).data;
    expect(data).toMatchObject({ counted: true, continued: true, seq: 7 });
    expect(data.dwell['1']).toBe(1500);
    expect(await viewLogs(link.id)).toHaveLength(1);
    // The page goes on with the view's token and sequence.
    const hb = await b.beacon(link.shareToken, { type: 'hb', seq: 8, token: data.token, page: 1, dwell: data.dwell });
    expect(hb.json()).toEqual({ status: 1, data: { accepted: true } });
  });

  it('a view silent for 30 s is closed by the sweep, its leave time its last beacon', async () => {
    const c = new Browser(t.server);
    const view = (await c.open(other.shareToken)).viewToken as string;
    await c.beacon(other.shareToken, { type: 'open', seq: 1, token: view, page: 1 });
    const [log] = await viewLogs(other.id);
    const db = t.server.ctx.database.db;
    const lastBeacon = Date.now() - 31_000;
    await db
      .updateTable('link_view_logs')
      .where('app_id', '=', p.appId)
      .set({ beacon_at: lastBeacon })
      .where('id', '=', log?.id as string)
      .execute();
    expect(await t.server.services.links.views.sweep()).toBeGreaterThanOrEqual(1);
    const row = await db
      .selectFrom('link_view_logs')
      .where('app_id', '=', p.appId)
      .select(['closed_at', 'left_at', 'leave_time'])
      .where('id', '=', log?.id as string)
      .executeTakeFirstOrThrow();
    expect(row.closed_at).not.toBeNull();
    expect(Number(row.left_at)).toBe(lastBeacon);
    expect(row.leave_time).toBe(t.server.ctx.clock.format(lastBeacon));
    // A second sweep finds nothing more to close of it.
    const again = await t.server.services.links.views.sweep();
    expect(again).toBe(0);
  });
});

describe('what a beacon credits', () => {
  let dwellLink: LinkData;
  beforeAll(async () => {
    dwellLink = await madeLink(t.server, p.appId, p.sales.token, { name: 'Dwell', file_id: fileId });
  });

  /** A view opened by a new browser, its id and token. */
  async function opened() {
    const b = new Browser(t.server);
    const token = (await b.open(dwellLink.shareToken)).viewToken as string;
    await b.beacon(dwellLink.shareToken, { type: 'open', seq: 1, token, page: 1 });
    const logs = await viewLogs(dwellLink.id);
    return { b, token, id: logs.find((l) => l.viewerId === b.cookies.get('rapport_visitor'))?.id as string };
  }
  const db = () => t.server.ctx.database.db;
  const stored = async (id: string) =>
    db()
      .selectFrom('link_view_logs')
      .where('app_id', '=', p.appId)
      .where('id', '=', id)
      .select(['total_duration', 'closed_at', 'beacon_at'])
      .executeTakeFirstOrThrow();
  /** Moves the view's start and last beacon back in time, as if it had been read that long ago. */
  const backdate = (id: string, viewTime: number, beaconAt: number) =>
    db()
      .updateTable('link_view_logs')
      .where('app_id', '=', p.appId)
      .where('id', '=', id)
      .set({ view_time: viewTime, beacon_at: beaconAt })
      .execute();

  it('no more than a heartbeat (10 s) plus 2 s, however long since the previous beacon', async () => {
    const { b, token, id } = await opened();
    const now = Date.now();
    await backdate(id, now - 20 * 60_000, now - 25_000);
    const res = await b.beacon(dwellLink.shareToken, { type: 'hb', seq: 2, token, page: 1, dwell: { 1: 25_000 } });
    expect(res.json()).toEqual({ status: 1, data: { accepted: true } });
    expect(Number((await stored(id)).total_duration)).toBe(12_000);
  });

  it('beacons in quick succession credit no more than the time between them and a quarter of it', async () => {
    const { b, token, id } = await opened();
    const now = Date.now();
    await backdate(id, now - 20 * 60_000, now - 10_000);
    // The first page beacon credits the time since the heartbeat was taken in, which is after this.
    const start = Date.now();
    await b.beacon(dwellLink.shareToken, { type: 'hb', seq: 2, token, page: 1, dwell: { 1: 10_000 } });
    const base = Number((await stored(id)).total_duration);
    for (let seq = 3; seq < 8; seq += 1)
      await b.beacon(dwellLink.shareToken, { type: 'page', seq, token, page: 2, dwell: { 1: 10_000, 2: seq * 2000 } });
    const added = Number((await stored(id)).total_duration) - base;
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual((Date.now() - start) * 1.25 + 50);
  });

  it('nothing across a close for silence: the next heartbeat reopens the view and credits none of the gap', async () => {
    const { b, token, id } = await opened();
    const now = Date.now();
    await backdate(id, now - 24 * 3600_000 + 60_000, now - 23 * 3600_000);
    expect(await t.server.services.links.views.sweep()).toBeGreaterThanOrEqual(1);
    const closed = await stored(id);
    expect(closed.closed_at).not.toBeNull();
    const hb = await b.beacon(dwellLink.shareToken, { type: 'hb', seq: 2, token, page: 1, dwell: { 1: 23 * 3600_000 } });
    expect(hb.json()).toEqual({ status: 1, data: { accepted: true } });
    const reopened = await stored(id);
    expect(reopened.closed_at).toBeNull();
    expect(Number(reopened.total_duration)).toBe(Number(closed.total_duration));
    // From the reopening on, reading counts again, within each beacon's budget.
    await backdate(id, now - 24 * 3600_000 + 60_000, Date.now() - 10_000);
    await b.beacon(dwellLink.shareToken, { type: 'hb', seq: 3, token, page: 1, dwell: { 1: 23 * 3600_000 + 10_000 } });
    expect(Number((await stored(id)).total_duration) - Number(closed.total_duration)).toBe(12_000);
  });
});

describe('bad beacons', () => {
  let b: Browser;
  let token: string;
  beforeAll(async () => {
    b = new Browser(t.server);
    token = (await b.open(other.shareToken)).viewToken as string;
  });

  const refused = async (body: unknown, code: string, contentType?: string, status = 400) => {
    const before = await snapshot();
    const res = await b.beacon(other.shareToken, body, contentType);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toMatchObject({ status: 0, code });
    expect(typeof (res.json() as { msg: unknown }).msg).toBe('string');
    expect(await snapshot()).toEqual(before);
  };

  it('a beacon before its open names no view', async () => {
    await refused({ type: 'hb', seq: 2, token, page: 1, dwell: { 1: 1000 } }, 'view_not_found');
  });

  it('malformed bodies and fields are refused with 400 beacon_invalid', async () => {
    await refused('{"type":', 'beacon_invalid');
    await refused('[1,2]', 'beacon_invalid');
    await refused('{not json', 'Bad Request', 'application/json');
    await refused({ type: 'explode', seq: 1, token, page: 1 }, 'beacon_invalid');
    await refused({ type: 'hb', seq: 0, token, page: 1 }, 'beacon_invalid');
    await refused({ type: 'hb', seq: 1.5, token, page: 1 }, 'beacon_invalid');
    await refused({ type: 'hb', seq: 2, page: 1 }, 'beacon_invalid');
    await refused({ type: 'hb', seq: 2, token, page: 4 }, 'beacon_invalid');
    await refused({ type: 'hb', seq: 2, token, page: 1, dwell: { 9: 100 } }, 'beacon_invalid');
    await refused({ type: 'hb', seq: 2, token, page: 1, dwell: { 1: -5 } }, 'beacon_invalid');
    await refused({ type: 'hb', seq: 2, token, page: 1, dwell: [1, 2] }, 'beacon_invalid');
  });

  it('a forged or tampered token, or another link’s, is refused with view_token_invalid', async () => {
    const [payload, mac] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...claims, v: 'someone-elses-view' })).toString('base64url')}.${mac}`;
    await refused({ type: 'open', seq: 1, token: forged, page: 1 }, 'view_token_invalid');
    await refused({ type: 'open', seq: 1, token: `${payload}.AAAAAAAAAAAAAAAAAAAAAA`, page: 1 }, 'view_token_invalid');
    await refused({ type: 'open', seq: 1, token: 'garbage', page: 1 }, 'view_token_invalid');
    // A genuine token of another link, sent to this one.
    const elsewhere = (await b.open(link.shareToken)).viewToken as string;
    await refused({ type: 'open', seq: 1, token: elsewhere, page: 1 }, 'view_token_invalid');
    // An expired one (a day old).
    const old = `${Buffer.from(JSON.stringify({ ...claims, t: Number(claims.t) - 2 * 86400 })).toString('base64url')}.${mac}`;
    await refused({ type: 'open', seq: 1, token: old, page: 1 }, 'view_token_invalid');
  });

  it('an oversized body is refused with 413 before it is read', async () => {
    await refused({ type: 'hb', seq: 2, token, page: 1, pad: 'x'.repeat(9000) }, 'payload_too_large', undefined, 413);
  });

  it('another content type is refused with 415', async () => {
    await refused('<beacon/>', 'unsupported_media_type', 'application/xml', 415);
  });

  it('a beacon to an unknown or disabled link is refused with link_unavailable', async () => {
    const res = await b.beacon('AAAAAAAAAAAAAAAAAAAAAA', { type: 'open', seq: 1, token, page: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 0, code: 'link_unavailable' });
    const gone = await madeLink(t.server, p.appId, p.sales.token, { name: 'Gone', file_id: fileId });
    const view = (await b.open(gone.shareToken)).viewToken as string;
    await t.server.api.delete(`/api/v1.7/app/${p.appId}/link/${gone.id}`, { token: p.sales.token });
    const late = await b.beacon(gone.shareToken, { type: 'open', seq: 1, token: view, page: 1 });
    expect(late.json()).toMatchObject({ status: 0, code: 'link_unavailable' });
  });

  it('bots and members signed in are not counted', async () => {
    const bot = new Browser(t.server, 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)');
    const botToken = (await bot.open(other.shareToken)).viewToken as string;
    const before = await snapshot();
    expect((await bot.beacon(other.shareToken, { type: 'open', seq: 1, token: botToken, page: 1 })).json()).toEqual({
      status: 1,
      data: { counted: false },
    });
    const member = await b.beacon(other.shareToken, { type: 'open', seq: 1, token, page: 1 }, undefined, {
      authorization: `Bearer ${p.sales.token}`,
    });
    expect(member.json()).toEqual({ status: 1, data: { counted: false } });
    expect(await snapshot()).toEqual(before);
  });
});

describe('per-view budget', () => {
  it('a view sending more beacons than its budget gets 429 rate_limited', async () => {
    const s = await startTestServer({ RATE_LIMITS: 'on', RATE_LIMIT_VIEW: '3', RATE_LIMIT_VIEWER: '1000' });
    try {
      const q = await historyProject(s);
      const f = await renderedFile(s, q, q.sales.token);
      const l = await madeLink(s, q.appId, q.sales.token, { name: 'Budget', file_id: f });
      const browser = new Browser(s);
      const view = (await browser.open(l.shareToken)).viewToken as string;
      const answers: number[] = [];
      for (let seq = 1; seq <= 5; seq += 1) {
        answers.push(
          (await browser.beacon(l.shareToken, { type: seq === 1 ? 'open' : 'hb', seq, token: view, page: 1, dwell: {} })).statusCode,
        );
      }
      expect(answers).toEqual([200, 200, 200, 429, 429]);
      const last = await browser.beacon(l.shareToken, { type: 'hb', seq: 6, token: view, page: 1 });
      expect(last.json()).toMatchObject({ status: 0, code: 'rate_limited' });
      expect(last.headers['retry-after']).toBeDefined();
    } finally {
      await s.close();
    }
  });
});

describe('the public routes under random input', () => {
  it('never answer 5xx or an undocumented failure', async () => {
    const { default: fc } = await import('fast-check');
    const { undocumented } = await import('../../helpers/openapi.ts');
    const b = new Browser(t.server);
    const view = (await b.open(other.shareToken)).viewToken as string;
    const beaconish = fc.record(
      {
        type: fc.oneof(fc.constantFrom('open', 'page', 'hb', 'hide', 'leave'), fc.string()),
        seq: fc.oneof(fc.integer(), fc.double(), fc.string()),
        token: fc.oneof(fc.constant(view), fc.string()),
        page: fc.oneof(fc.integer({ min: -5, max: 10 }), fc.string()),
        dwell: fc.oneof(fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.string())), fc.anything()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          beaconish.map((v) => JSON.stringify(v)),
          fc.string(),
          fc.json(),
        ),
        async (body) => {
          const res = await b.beacon(other.shareToken, body);
          expect(res.statusCode).toBeLessThan(500);
          expect(undocumented(res), res.body).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (token, n) => {
        for (const url of [
          `/l/${encodeURIComponent(token)}`,
          `/l/${encodeURIComponent(token)}/page/${encodeURIComponent(n)}`,
          `/l/${other.shareToken}/page/${encodeURIComponent(n)}`,
        ]) {
          const res = await b.get(url);
          expect([200, 404, 410]).toContain(res.statusCode);
        }
        const form = await b.post(`/l/${encodeURIComponent(token)}/form`, JSON.stringify({ name: n }), 'application/json');
        expect(form.statusCode).toBeLessThan(500);
        expect(undocumented(form), form.body).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });
});
