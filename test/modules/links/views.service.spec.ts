import { beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../../src/context.ts';
import { AppError } from '../../../src/http/errors.ts';
import type { ViewerCustomer } from '../../../src/modules/customers/service.ts';
import type { ViewerFile } from '../../../src/modules/files/service.ts';
import type { ViewerWrite } from '../../../src/modules/ingest/service.ts';
import { createLinkGates } from '../../../src/modules/links/gates.ts';
import type { DurationRow, LinkRow, ViewRow } from '../../../src/modules/links/mapper.ts';
import { createLinkRecords } from '../../../src/modules/links/records.ts';
import { createLinkSigning } from '../../../src/modules/links/signing.ts';
import type { VisitorRequest } from '../../../src/modules/links/viewer-model.ts';
import { SILENT_VIEW_MS } from '../../../src/modules/links/view-sweep.service.ts';
import { CONTINUE_VIEW_MS, type ViewsRepository, createLinkViews } from '../../../src/modules/links/views.service.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';

const APP = 'app-1';
const BASE = 'https://rapport.test';

function linkRow(over: Partial<LinkRow>): LinkRow {
  return {
    id: 'link-1',
    app_id: APP,
    creator_id: 1,
    name: 'Deck',
    short_name: null,
    creator_name: null,
    conference_id: null,
    remark: null,
    file1: 'file-1',
    file2: null,
    file3: null,
    file4: null,
    form_type: '1',
    website: null,
    clue_id: null,
    src: 'link_view',
    customer_id: null,
    official_account_id: null,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_content: null,
    utm_term: null,
    tags: null,
    share_token: 'share-1',
    form_position: null,
    type: 1,
    form_pop_time: null,
    is_directional: 0,
    weixin_grant_type: null,
    read_seq: 0,
    created_at: 0,
    updated_at: 0,
    status: 1,
    expires_at: null,
    passcode_hash: null,
    allow_download: 0,
    email_gate: 0,
    embed: 0,
    form_fields: null,
    disabled_at: null,
    title: null,
    email_verify: 0,
    allow_list: null,
    deny_list: null,
    agreement: null,
    agreement_version: 0,
    watermark: 0,
    room_id: null,
    ...over,
  };
}

const file: ViewerFile = {
  id: 'file-1',
  name: 'deck.pdf',
  mimeType: 'application/pdf',
  status: 'ready',
  pageCount: 3,
  version: 'v1',
  versionNumber: 1,
  pages: [],
};

/**
 * The view logs and their durations in memory: the fake repository reads them and the fake
 * ingestion writes them as ingestion's viewer write path does (a beacon's progress applies only
 * while the view's last beacon is still the one it moved on from).
 */
function memoryViews() {
  const views = new Map<string, ViewRow>();
  const durations = new Map<string, DurationRow[]>();
  const writes: ViewerWrite[] = [];

  const repository: ViewsRepository = {
    async view(_r, _appId, id) {
      const view = views.get(id);
      return view === undefined ? undefined : { view: { ...view }, durations: [...(durations.get(id) ?? [])] };
    },
    async recentView(_r, _appId, visitorId, linkId, since) {
      const found = [...views.values()]
        .filter((v) => v.visitor_id === visitorId && v.link_id === linkId && (v.beacon_at ?? 0) >= since)
        .sort((a, b) => b.view_time - a.view_time)[0];
      return found === undefined ? undefined : { id: found.id, beacon_seq: found.beacon_seq };
    },
    async visitorCustomer() {
      return null;
    },
    async customerViewedBefore() {
      return false;
    },
    async silentViews(_db, before, limit) {
      return [...views.values()]
        .filter((v) => v.closed_at === null && v.beacon_at !== null && v.beacon_at < before)
        .slice(0, limit)
        .map((v) => ({
          app_id: v.app_id,
          id: v.id,
          link_id: v.link_id,
          customer_id: v.customer_id,
          visitor_id: v.visitor_id,
          view_time: v.view_time,
          beacon_seq: v.beacon_seq,
          beacon_at: v.beacon_at ?? 0,
          left_at: v.left_at,
          link_type: 1,
          link_name: 'Deck',
          link_src: 'link_view',
          link_tags: null,
        }));
    },
  };

  function write(w: ViewerWrite): boolean {
    for (const l of w.viewLogs ?? []) {
      views.set(l.id, {
        ...({} as ViewRow),
        id: l.id,
        app_id: w.appId,
        link_id: String(l.body.linkId),
        view_time: w.now,
        total_duration: 0,
        total_page: 0,
        ...l.state,
      });
    }
    const p = w.progress;
    if (p !== undefined) {
      const view = views.get(p.viewLogId);
      if (view === undefined || view.beacon_seq !== p.fromSeq) return false;
      views.set(p.viewLogId, { ...view, ...p.state, total_duration: p.totals.totalDuration, total_page: p.totals.totalPage });
      const list = durations.get(p.viewLogId) ?? [];
      for (const d of p.durations) {
        const row = {
          position: d.position,
          page_index: String(d.body.pageIndex),
          duration: String(d.body.duration),
          created_at: null,
        } as unknown as DurationRow;
        const at = list.findIndex((x) => x.position === d.position);
        if (at >= 0) list[at] = row;
        else list.push(row);
      }
      durations.set(p.viewLogId, list);
    }
    writes.push(w);
    return true;
  }

  return { views, writes, repository, ingest: { recordViewer: async (w: ViewerWrite) => write(w) } };
}

function setUp(link: LinkRow, known: ViewerCustomer[] = []) {
  const clock = new FakeClock();
  const store = memoryViews();
  const ctx = {
    clock,
    logger: { warn: () => {} },
    config: { publicBaseUrl: BASE },
    database: { db: {}, reader: {} },
    visitors: {
      describe: (userAgent: string | undefined, ip: string | undefined) => ({
        isBot: /bot/i.test(userAgent ?? ''),
        clientName: null,
        clientVersion: null,
        os: null,
        osVersion: null,
        device: 'desktop' as const,
        system: null,
        client: null,
        ip: ip ?? null,
        location: null,
        province: null,
        city: null,
      }),
    },
  } as unknown as AppContext;
  const signing = createLinkSigning(clock, async () => Buffer.alloc(32, 7));
  const gates = createLinkGates(ctx, {
    access: { memberRecord: async () => null },
    signing,
    repository: { byShareToken: async (_r, token) => (token === link.share_token ? link : undefined) },
  });
  const views = createLinkViews(ctx, {
    accounts: { userById: async () => undefined },
    customers: { viewerCustomers: async (_appId, ids) => new Map(known.filter((c) => ids.includes(c.id)).map((c) => [c.id, c])) },
    ingest: store.ingest,
    notifier: { enabled: false, send: async () => {} },
    gates,
    signing,
    records: createLinkRecords(clock, BASE),
    viewerFile: async () => file,
    repository: store.repository,
  });
  return { clock, store, signing, views };
}

const visitor = (over: Partial<VisitorRequest> = {}): VisitorRequest => ({
  userAgent: 'Mozilla/5.0 Firefox/130.0',
  ip: '203.0.113.9',
  visitorId: 'visitor-1',
  userId: null,
  unlock: undefined,
  ...over,
});

const noBudget = async () => {};

describe('view recording', () => {
  let t: ReturnType<typeof setUp>;
  const link = linkRow({});

  beforeEach(() => {
    t = setUp(link);
  });

  it("starts a view with the page's open beacon, at the clock's time; an anonymous visitor's open is an event for the owner", async () => {
    const token = await t.signing.viewToken(link.id, 'view-1');
    const answer = await t.views.beacon(link.share_token, { type: 'open', seq: 1, token, page: 2 }, visitor(), noBudget);
    expect(answer).toEqual({ counted: true, token, seq: 1 });
    const [write] = t.store.writes;
    expect(write?.now).toBe(t.clock.now());
    expect(write?.viewLogs?.[0]?.state).toMatchObject({
      visitor_id: 'visitor-1',
      customer_id: null,
      beacon_seq: 1,
      beacon_at: t.clock.now(),
    });
    expect(write?.viewLogs?.[0]?.body).toMatchObject({ viewTime: t.clock.format(t.clock.now()), totalPage: 1 });
    expect(write?.behaviours).toEqual([]);
    expect(write?.events?.[0]).toMatchObject({ event_type: 'create', domainType: 'LinkView', domainId: 'view-1' });
  });

  it("does not count a bot's open (its beacon still spends the view's budget)", async () => {
    const token = await t.signing.viewToken(link.id, 'view-1');
    const spent: string[] = [];
    const answer = await t.views.beacon(
      link.share_token,
      { type: 'open', seq: 1, token },
      visitor({ userAgent: 'Googlebot/2.1' }),
      async (v) => {
        spent.push(v);
      },
    );
    expect(answer).toEqual({ counted: false });
    expect(spent).toEqual(['view-1']);
    expect(t.store.writes).toEqual([]);
  });

  it('credits a beacon at most the time since the previous one and a quarter of it (at most 2 s)', async () => {
    const token = await t.signing.viewToken(link.id, 'view-1');
    await t.views.beacon(link.share_token, { type: 'open', seq: 1, token, page: 1 }, visitor(), noBudget);
    await t.clock.advance(4000);
    const hb = await t.views.beacon(link.share_token, { type: 'hb', seq: 2, token, page: 1, dwell: { 1: 60_000 } }, visitor(), noBudget);
    expect(hb).toEqual({ accepted: true });
    expect(t.store.views.get('view-1')).toMatchObject({ total_duration: 5000, beacon_seq: 2, beacon_at: t.clock.now() });
    // The same sequence again is a duplicate and changes nothing.
    const again = await t.views.beacon(link.share_token, { type: 'hb', seq: 2, token, page: 1, dwell: { 1: 60_000 } }, visitor(), noBudget);
    expect(again).toEqual({ duplicate: true });
    expect(t.store.writes).toHaveLength(2);
  });

  it('refuses a view token older than a day, and one of another link', async () => {
    const token = await t.signing.viewToken(link.id, 'view-1');
    const other = await t.signing.viewToken('link-2', 'view-2');
    await t.clock.advance(24 * 3600_000 + 1000);
    for (const tok of [token, other]) {
      const refused = await t.views
        .beacon(link.share_token, { type: 'open', seq: 1, token: tok }, visitor(), noBudget)
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe('view_token_invalid');
    }
    expect(t.store.writes).toEqual([]);
  });

  it("continues the visitor's view on a reload within CONTINUE_VIEW_MS, and starts a new one after", async () => {
    const first = await t.signing.viewToken(link.id, 'view-1');
    await t.views.beacon(link.share_token, { type: 'open', seq: 1, token: first, page: 1 }, visitor(), noBudget);
    await t.clock.advance(3000);
    await t.views.beacon(link.share_token, { type: 'hb', seq: 2, token: first, page: 1, dwell: { 1: 3000 } }, visitor(), noBudget);
    await t.clock.advance(CONTINUE_VIEW_MS - 1000);
    const reload = await t.signing.viewToken(link.id, 'view-2');
    const continued = await t.views.beacon(link.share_token, { type: 'open', seq: 1, token: reload, page: 1 }, visitor(), noBudget);
    expect(continued).toMatchObject({ counted: true, continued: true, seq: 2, dwell: { 1: 3000 } });
    expect(t.store.views.has('view-2')).toBe(false);
    await t.clock.advance(2000);
    const later = await t.signing.viewToken(link.id, 'view-3');
    expect(await t.views.beacon(link.share_token, { type: 'open', seq: 1, token: later, page: 1 }, visitor(), noBudget)).toEqual({
      counted: true,
      token: later,
      seq: 1,
    });
    expect(t.store.views.has('view-3')).toBe(true);
  });
});

describe('the sweep of silent views', () => {
  const customer: ViewerCustomer = { id: 'customer-1', name: 'Ada', ownerId: 1 };
  const link = linkRow({ is_directional: 1, customer_id: customer.id });

  it('closes a view silent for SILENT_VIEW_MS at its last beacon, with its customer’s leave record; the job idles otherwise', async () => {
    const t = setUp(link, [customer]);
    const token = await t.signing.viewToken(link.id, 'view-1');
    await t.views.beacon(link.share_token, { type: 'open', seq: 1, token, page: 1 }, visitor(), noBudget);
    const openedAt = t.clock.now();
    expect(t.store.writes[0]?.behaviours?.map((b) => b.body.action)).toEqual(['link_view_log', 'file_view_duration']);

    await t.clock.advance(SILENT_VIEW_MS - 1);
    expect(await t.views.sweepJob.tick({ stopping: false })).toBe('idle');
    expect(t.store.views.get('view-1')?.closed_at).toBeNull();

    await t.clock.advance(2);
    expect(await t.views.sweepJob.tick({ stopping: false })).toBe('worked');
    expect(t.store.views.get('view-1')).toMatchObject({ closed_at: t.clock.now(), left_at: openedAt, beacon_at: openedAt });
    const leave = t.store.writes.at(-1)?.behaviours?.[0]?.body;
    expect(leave).toMatchObject({ customerId: customer.id, action: 'link_leave_log', when: t.clock.format(openedAt) });
    expect(JSON.parse(String(leave?.content))).toMatchObject({ linkViewLogId: 'view-1', leaveTime: t.clock.format(openedAt) });

    // Closed once: the next sweep finds nothing.
    expect(await t.views.sweep()).toBe(0);
  });
});
