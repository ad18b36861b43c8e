// lanes: sqlite postgres
import type { Kysely } from 'kysely';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { withoutAppIdCheck } from '../../../src/db/app-id-check.ts';
import { backfill } from '../../../src/db/migrations/042_view_file_versions.ts';
import { fixture, settled, upload } from '../../helpers/files.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, MINUTE, addCustomers, historyProject } from '../../helpers/histories.ts';
import { Browser, type LinkData, Reader, TestClock, madeLink, renderedFile } from '../../helpers/links.ts';

/**
 * A link's reading analytics over HTTP (docs/links.md, "Reading analytics"): a deck read through the
 * viewer's beacons by several visitors on the test's clock gives exact figures per version of the
 * file (completion, each page's average time and reach, median time, drop-off, unique viewers) and
 * per viewer; a new version of the file is counted apart; a Sales member reads their own links'
 * only; the viewers' CSV neutralises formulas; views recorded before migration 042 are counted
 * under the file's version at the time of the migration.
 */
const t = useTestServer();
let p: HistoryProject;
let fileId: string;
let link: LinkData;
let clock: TestClock;

interface Analytics {
  linkId: string;
  views: number;
  uniqueViewers: number;
  versions: {
    fileId: string;
    fileName: string | null;
    version: number;
    current: boolean;
    pageCount: number;
    views: number;
    uniqueViewers: number;
    completion: number;
    medianSeconds: number;
    pages: { page: number; views: number; avgSeconds: number; reach: number }[];
    dropOffPage: { page: number; views: number; share: number } | null;
  }[];
  viewers: {
    viewerId: string;
    customerId: string | null;
    viewerName: string | null;
    views: number;
    completion: number | null;
    seconds: number;
    lastViewedAt: string;
  }[];
}

const url = (linkId: string) => `/api/v1.7/app/${p.appId}/link/${linkId}/analytics`;

async function analytics(linkId: string, token: string, query: Record<string, string | number> = {}): Promise<Analytics> {
  const res = await t.server.api.get(url(linkId), { token, query });
  const json = res.json() as { status: number; data: Analytics };
  expect(json.status, res.body).toBe(1);
  return json.data;
}

/** Reads with a new view of `browser`'s visitor: pages in order, each for its seconds, then leaves. */
async function reading(share: string, browser: Browser, pages: [page: number, seconds: number][]): Promise<void> {
  const r = new Reader(t.server, share, clock, browser);
  await r.open(pages[0]?.[0] ?? 1);
  for (const [page, seconds] of pages) await r.read(page, seconds);
  await r.leave();
  // The next reading of the same visitor is a view of its own (a reload within 30 minutes would continue this one).
  clock.advance(31 * MINUTE);
}

beforeAll(async () => {
  p = await historyProject(t.server);
  fileId = await renderedFile(t.server, p, p.sales.token);
  link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Pricing', file_id: fileId });
  clock = new TestClock(t.server);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a deck read by several visitors', () => {
  let before: Analytics;

  it('lists every page of the current version, unread, before anyone reads it', async () => {
    const a = await analytics(link.id, p.sales.token);
    expect(a).toMatchObject({ linkId: link.id, views: 0, uniqueViewers: 0, viewers: [] });
    expect(a.versions).toEqual([
      {
        fileId,
        fileName: 'deck.pdf',
        version: 1,
        current: true,
        pageCount: 3,
        views: 0,
        uniqueViewers: 0,
        completion: 0,
        medianSeconds: 0,
        pages: [1, 2, 3].map((page) => ({ page, views: 0, avgSeconds: 0, reach: 0 })),
        dropOffPage: null,
      },
    ]);
  });

  it('gives the exact completion, time per page, median time, drop-off and unique viewers', async () => {
    clock.use();
    const ada = new Browser(t.server);
    const bob = new Browser(t.server);
    const cy = new Browser(t.server);
    await reading(link.shareToken, ada, [
      [1, 20],
      [2, 10],
      [3, 30],
    ]);
    await reading(link.shareToken, bob, [
      [1, 10],
      [2, 20],
    ]);
    await reading(link.shareToken, cy, [[1, 40]]);
    await reading(link.shareToken, ada, [[1, 10]]);
    const a = await analytics(link.id, p.sales.token);
    expect(a).toMatchObject({ views: 4, uniqueViewers: 3 });
    expect(a.versions).toEqual([
      {
        fileId,
        fileName: 'deck.pdf',
        version: 1,
        current: true,
        pageCount: 3,
        views: 4,
        uniqueViewers: 3,
        // (3/3 + 2/3 + 1/3 + 1/3) / 4
        completion: 0.5833,
        // 10, 30, 40 and 60 s
        medianSeconds: 35,
        pages: [
          { page: 1, views: 4, avgSeconds: 20, reach: 1 },
          { page: 2, views: 2, avgSeconds: 15, reach: 0.5 },
          { page: 3, views: 1, avgSeconds: 30, reach: 0.25 },
        ],
        // Two of the four views ended on page 1 (one on 2; the one that ended on the last page read it all).
        dropOffPage: { page: 1, views: 2, share: 0.5 },
      },
    ]);
    const visitor = (b: Browser) => b.cookies.get('rapport_visitor');
    // The one who viewed last first; each viewer's completion is their views' mean.
    expect(a.viewers).toEqual([
      {
        viewerId: visitor(ada),
        customerId: null,
        viewerName: null,
        views: 2,
        completion: 0.6667,
        seconds: 70,
        lastViewedAt: expect.any(String),
      },
      {
        viewerId: visitor(cy),
        customerId: null,
        viewerName: null,
        views: 1,
        completion: 0.3333,
        seconds: 40,
        lastViewedAt: expect.any(String),
      },
      {
        viewerId: visitor(bob),
        customerId: null,
        viewerName: null,
        views: 1,
        completion: 0.6667,
        seconds: 30,
        lastViewedAt: expect.any(String),
      },
    ]);
    expect(a.viewers[0]?.lastViewedAt).toBe(t.server.ctx.clock.format(clock.now - 31 * MINUTE - 10_000));
    // Paged as the other lists.
    const second = await analytics(link.id, p.sales.token, { start_index: 1, count: 1 });
    expect(second.viewers.map((v) => v.viewerId)).toEqual([visitor(cy)]);
    before = a;
  });

  it('counts views recorded before the migration under the file’s version at the time of the migration', async () => {
    const db = t.server.ctx.database.db;
    await db
      .updateTable('link_view_logs')
      .set({ file_id: null, file_version: null, last_page: null })
      .where('app_id', '=', p.appId)
      .where('link_id', '=', link.id)
      .execute();
    await db.updateTable('link_view_durations').set({ link_id: null, file_version: null }).where('app_id', '=', p.appId).execute();
    expect((await analytics(link.id, p.sales.token)).versions[0]).toMatchObject({
      views: 0,
      pages: [{ views: 0 }, { views: 0 }, { views: 0 }],
    });
    await withoutAppIdCheck(() => backfill(db as unknown as Kysely<unknown>));
    expect(await analytics(link.id, p.sales.token)).toEqual(before);
  });

  it('separates a new version of the file: its own figures, the earlier one’s kept, each version’s viewers on asking', async () => {
    const res = await upload(
      t.server,
      p.appId,
      p.sales.token,
      { filename: 'chinese.pdf', bytes: fixture('chinese.pdf'), contentType: 'application/pdf' },
      { fileId },
    );
    expect(res.json(), res.body).toMatchObject({ status: 1, data: { version: 2 } });
    expect((await settled(t.server, p.appId, p.sales.token, fileId)).status).toBe('ready');
    clock.advance(10_000); // past the viewer's few seconds of the file's cache
    clock.use();
    const dee = new Browser(t.server);
    await reading(link.shareToken, dee, [[1, 20]]);
    const a = await analytics(link.id, p.sales.token);
    expect(a).toMatchObject({ views: 5, uniqueViewers: 4 });
    expect(a.versions.map((v) => [v.version, v.current, v.pageCount, v.views])).toEqual([
      [2, true, 2, 1],
      [1, false, 3, 4],
    ]);
    expect(a.versions[0]).toEqual({
      fileId,
      fileName: 'chinese.pdf',
      version: 2,
      current: true,
      pageCount: 2,
      views: 1,
      uniqueViewers: 1,
      completion: 0.5,
      medianSeconds: 20,
      pages: [
        { page: 1, views: 1, avgSeconds: 20, reach: 1 },
        { page: 2, views: 0, avgSeconds: 0, reach: 0 },
      ],
      dropOffPage: { page: 1, views: 1, share: 1 },
    });
    // Version 1's figures are as they were.
    expect(a.versions[1]).toEqual({ ...before.versions[0], fileName: 'chinese.pdf', current: false });

    const v2 = await analytics(link.id, p.sales.token, { version: 2 });
    expect(v2.versions.map((v) => v.version)).toEqual([2]);
    expect(v2.viewers).toEqual([
      {
        viewerId: dee.cookies.get('rapport_visitor'),
        customerId: null,
        viewerName: null,
        views: 1,
        completion: 0.5,
        seconds: 20,
        lastViewedAt: expect.any(String),
      },
    ]);
    const v1 = await analytics(link.id, p.sales.token, { version: 1, file_id: fileId });
    expect(v1.versions).toEqual([{ ...before.versions[0], fileName: 'chinese.pdf', current: false }]);
    expect(v1.viewers).toEqual(before.viewers);
    // A version no view opened: no figures, no viewers.
    expect(await analytics(link.id, p.sales.token, { version: 7 })).toMatchObject({ views: 5, versions: [], viewers: [] });
  });
});

describe('who may read a link’s analytics', () => {
  it('is who may read its views: Master and Admin any link of the project, Sales their own; else link_not_found', async () => {
    for (const token of [p.master.token, p.admin.token, p.sales.token]) {
      expect((await analytics(link.id, token)).views).toBe(5);
    }
    for (const id of [link.id, 'no-such-link']) {
      const res = await t.server.api.get(url(id), { token: p.sales2.token });
      expect(res.json()).toMatchObject({ status: 0, code: 'link_not_found' });
      const csv = await t.server.api.get(url(id), { token: p.sales2.token, query: { format: 'csv' } });
      expect(csv.json()).toMatchObject({ status: 0, code: 'link_not_found' });
    }
    const outsider = await t.server.api.get(url(link.id), { token: p.outsider.token });
    expect(outsider.statusCode).toBe(403);
    expect(outsider.body).not.toContain('Pricing');
  });
});

describe('the viewers as CSV', () => {
  it('has every viewer with the figures of `viewers`, formula-like names neutralised', async () => {
    await addCustomers(t.server, p, [{ id: 'an-formula', owner: p.sales.id, name: '=HYPERLINK("http://evil.example","x")' }]);
    const directed = await madeLink(t.server, p.appId, p.sales.token, { name: 'For one', file_id: fileId, customer_id: 'an-formula' });
    clock.use();
    await reading(directed.shareToken, new Browser(t.server), [
      [1, 10],
      [2, 10],
    ]);
    const res = await t.server.api.get(url(directed.id), { token: p.sales.token, query: { format: 'csv' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="link-${directed.id}-viewers.csv"`);
    const lines = res.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toBe('viewerId,customerId,viewerName,views,completion,seconds,lastViewedAt');
    expect(lines[1]).toBe(
      `an-formula,an-formula,"'=HYPERLINK(""http://evil.example"",""x"")",1,1,20,${t.server.ctx.clock.format(clock.now - 31 * MINUTE - 20_000)}`,
    );
    expect(lines.slice(2)).toEqual(['']);
    // The deck's link: one line a viewer, version 2's alone on asking.
    const all = await t.server.api.get(url(link.id), { token: p.master.token, query: { format: 'csv' } });
    expect(all.body.split('\r\n').filter((l) => l !== '')).toHaveLength(1 + 4);
    const v2 = await t.server.api.get(url(link.id), { token: p.master.token, query: { format: 'csv', version: 2 } });
    expect(v2.body.split('\r\n').filter((l) => l !== '')).toHaveLength(1 + 1);
    // Each export is in the project's audit log, with the version asked.
    const log = await t.server.api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token: p.master.token });
    const exports = (log.json() as { data: { action: string; svcUserId: string; targetId: string; detail: unknown }[] }).data.filter(
      (e) => e.action === 'link.analytics_export',
    );
    expect(exports.map((e) => [e.svcUserId, e.targetId, e.detail])).toEqual([
      [String(p.master.id), link.id, { format: 'csv', fileId, version: 2 }],
      [String(p.master.id), link.id, { format: 'csv' }],
      [String(p.sales.id), directed.id, { format: 'csv' }],
    ]);
  });
});
