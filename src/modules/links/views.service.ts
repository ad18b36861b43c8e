import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/index.ts';
import { publicFailure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { CustomerWritePath, ViewerCustomer } from '../customers/service.ts';
import type { ViewerFile } from '../files/service.ts';
import type { IngestService, ViewerWrite } from '../ingest/service.ts';
import { type Beacon, BeaconError, type DwellChange, type PageDwell, applyDwell, dwellStateOf, parseBeacon } from './beacons.ts';
import type { LinkGates } from './gates.ts';
import { type DurationRow, type LinkRow, type SilentView, type ViewRow, tagsOf } from './mapper.ts';
import { type OwnerNotifier, createFirstOpenMail } from './notifier.ts';
import type { LinkRecords, VisitorEnv } from './records.ts';
import { linksRepository } from './repository.ts';
import type { LinkSigning } from './signing.ts';
import type { ViewerFiles } from './viewer-files.ts';
import type { VisitorRequest } from './viewer-model.ts';

/** A reload within this time continues the visitor's last view of the link instead of starting one. */
export const CONTINUE_VIEW_MS = 30 * 60 * 1000;
/** A view without a beacon for this long is closed (its leave recorded) by the sweep. */
export const SILENT_VIEW_MS = 30 * 1000;
/** How often the sweep job runs. */
export const SWEEP_EVERY_MS = 10_000;
/** Silent views one sweep closes at most. */
const SWEEP_BATCH = 200;

/** The SQL view recording runs: the module's repository (a spec hands a fake). */
export type ViewsRepository = Pick<
  typeof linksRepository,
  'view' | 'recentView' | 'visitorCustomer' | 'customerViewedBefore' | 'silentViews'
>;

export interface LinkViewsDeps {
  accounts: Pick<AccountsService, 'userById'>;
  customers: Pick<CustomerWritePath, 'viewerCustomers'>;
  ingest: Pick<IngestService, 'recordViewer'>;
  /** Owners' e-mails on a customer's first open. */
  notifier: OwnerNotifier;
  /** Whether the link's creator takes that e-mail in the project (their alert settings); none: no e-mail. */
  mailsFirstOpen?: (userId: number, appId: string, customerOwnerId: number) => Promise<boolean>;
  gates: LinkGates;
  signing: LinkSigning;
  records: LinkRecords;
  viewerFile: ViewerFiles;
  repository?: ViewsRepository;
}

/** How a view starts: the first beacon's sequence, the page shown first (none for a redirect), closed at once or not. */
interface ViewStart {
  viewId: string;
  seq: number;
  now: number;
  page: number | null;
  close: boolean;
}

/** Who opens the link, as a view's first records name them. */
interface Opener {
  link: LinkRow;
  visitor: VisitorRequest;
  env: VisitorEnv;
  /** A file link's file as the view opens it (its version is the view's). */
  file: ViewerFile | null;
}

/** What one beacon of an open view moved on. */
interface BeaconStep {
  link: LinkRow;
  view: ViewRow;
  change: DwellChange;
  now: number;
  env: VisitorEnv | null;
}

const tokenRefused = () =>
  publicFailure('view_token_invalid', 'The view token is not valid for this link (forged, another link’s, or expired)');

/**
 * View recording (docs/links.md, "Beacons"; ADR 0022), for the viewer page's script and the
 * background sweep: a view starts with the page's `open` beacon (a redirect link's visit starts and
 * closes one at once), beacons credit the pages read, a leave or silence closes it. Views, durations,
 * behaviour records, counters and events are written through the ingestion service's write path.
 */
export function createLinkViews(ctx: AppContext, deps: LinkViewsDeps) {
  const { customers, ingest, gates, signing, records, viewerFile } = deps;
  const repo = deps.repository ?? linksRepository;
  const reader = ctx.database.reader;
  const { clock } = ctx;
  const firstOpenMail = createFirstOpenMail(ctx, {
    notifier: deps.notifier,
    mailsFirstOpen: deps.mailsFirstOpen,
    accounts: deps.accounts,
    viewedBefore: (link, customerId, viewId) => repo.customerViewedBefore(reader, link.app_id, link.id, customerId, viewId),
  });

  /** The customer a view is attributed to: the directed link's, else the one the visitor is tied to in the project. */
  async function customerFor(link: LinkRow, visitorId: string): Promise<ViewerCustomer | null> {
    const id =
      link.is_directional === 1 && link.customer_id !== null
        ? link.customer_id
        : await repo.visitorCustomer(reader, link.app_id, visitorId);
    if (id === null) return null;
    return (await customers.viewerCustomers(link.app_id, [id])).get(id) ?? null;
  }

  function viewLogItem(o: Opener, customer: ViewerCustomer | null, start: ViewStart, durations: Record<string, unknown>[]) {
    const { link, visitor, env } = o;
    const { now, close } = start;
    return {
      id: start.viewId,
      body: {
        linkId: link.id,
        viewTime: clock.format(now),
        viewerId: customer?.id ?? visitor.visitorId,
        viewerName: customer?.name ?? null,
        ip: env.ip,
        location: env.location,
        system: env.system,
        client: env.client,
        utmSource: link.utm_source,
        utmMedium: link.utm_medium,
        utmCampaign: link.utm_campaign,
        utmContent: link.utm_content,
        utmTerm: link.utm_term,
        totalDuration: 0,
        totalPage: durations.length,
        durations,
        ...(close ? { leaveTime: clock.format(now) } : {}),
      },
      state: {
        visitor_id: visitor.visitorId,
        customer_id: customer?.id ?? null,
        beacon_seq: start.seq,
        beacon_at: now,
        closed_at: close ? now : null,
        left_at: close ? now : null,
        file_id: o.file?.id ?? null,
        file_version: o.file?.versionNumber ?? null,
        file_page_count: o.file?.pageCount ?? null,
        last_page: start.page,
      },
    };
  }

  /** The customer's records of a view's start: the view, the page shown first, the leave of a view closed at once. */
  function startRecords(o: Opener, customer: ViewerCustomer, start: ViewStart) {
    const { link, visitor, env } = o;
    const { viewId, now } = start;
    const out = [
      records.behaviour(customer, {
        visitorId: visitor.visitorId,
        action: 'link_view_log',
        when: now,
        content: { ...records.linkRef(link), linkViewLogId: viewId },
        env,
      }),
    ];
    if (start.page !== null) {
      // Beyond the interface's shape: which link and which page, so that a feed can say it.
      const content = { fileViewDurationId: `${viewId}:0`, linkViewLogId: viewId, ...records.linkRef(link), page: start.page };
      out.push(records.behaviour(customer, { visitorId: visitor.visitorId, action: 'file_view_duration', when: now, content, env }));
    }
    if (start.close) {
      const view = { id: viewId, view_time: now, left_at: null, visitor_id: visitor.visitorId };
      out.push(records.leave(customer, { link, view, at: now, env }));
    }
    return out;
  }

  /** A visitor not yet known opens the link: no behaviour record (it has no customer), but its owner hears of it (LinkView.create). */
  function anonymousOpenEvent(o: Opener, start: ViewStart): NonNullable<ViewerWrite['events']>[number] {
    const { link, visitor, env } = o;
    return {
      event_type: 'create',
      domainType: 'LinkView',
      domainId: start.viewId,
      body: {
        id: start.viewId,
        appId: link.app_id,
        linkId: link.id,
        linkName: link.name,
        linkType: link.type,
        svcUserId: link.creator_id,
        viewerId: visitor.visitorId,
        customerId: null,
        viewTime: clock.format(start.now),
        location: env.location,
        system: env.system,
        client: env.client,
      },
    };
  }

  /** Starts a view (the `open` beacon, or a redirect link's visit): its view log, and its customer's records. */
  async function startView(link: LinkRow, visitor: VisitorRequest, start: ViewStart): Promise<void> {
    const customer = await customerFor(link, visitor.visitorId);
    // The page shown first is read from the open on: its Duration item (and page-turn record) start now.
    const file = start.page === null || link.type !== 1 ? null : await viewerFile(link.app_id, link.file1 ?? '');
    const o: Opener = { link, visitor, env: ctx.visitors.describe(visitor.userAgent, visitor.ip), file };
    const first =
      start.page === null
        ? []
        : records.durations(link, file, new Map([[start.page, { position: 0, ms: 0, firstAt: start.now }]]), start.now);
    const write: ViewerWrite = {
      appId: link.app_id,
      now: start.now,
      linkTags: tagsOf(link),
      viewLogs: [
        viewLogItem(
          o,
          customer,
          start,
          first.map((d) => d.body),
        ),
      ],
      behaviours: customer === null ? [] : startRecords(o, customer, start),
    };
    if (customer === null) write.events = [anonymousOpenEvent(o, start)];
    await ingest.recordViewer(write);
    if (customer !== null) void firstOpenMail(link, customer, start.viewId, o.env);
  }

  /** A beacon that starts a view, or continues the visitor's recent one (a reload within 30 minutes). */
  async function openBeacon(link: LinkRow, beacon: Beacon, visitor: VisitorRequest) {
    if (!(await gates.counts(link, visitor))) return { counted: false as const };
    const viewId = await signing.viewOf(beacon.token, link.id);
    if (viewId === null) throw tokenRefused();
    const now = clock.now();
    const existing = await repo.view(reader, link.app_id, viewId);
    if (existing) {
      if (existing.view.link_id !== link.id) throw publicFailure('view_token_invalid', 'The view belongs to another link');
      // The same open again (a retry): the view goes on.
      return { counted: true as const, token: beacon.token, seq: Math.max(existing.view.beacon_seq, beacon.seq) };
    }
    const recent = await repo.recentView(reader, link.app_id, visitor.visitorId, link.id, now - CONTINUE_VIEW_MS);
    if (recent) {
      // The page goes on with the view's token, its sequence and what it read so far (its figures are totals).
      const dwell: Record<string, number> = {};
      for (const d of (await repo.view(reader, link.app_id, recent.id))?.durations ?? [])
        dwell[String(d.page_index)] = Number(d.duration ?? 0);
      return { counted: true as const, continued: true, token: await signing.viewToken(link.id, recent.id), seq: recent.beacon_seq, dwell };
    }
    try {
      await startView(link, visitor, { viewId, seq: beacon.seq, now, page: beacon.page, close: false });
    } catch (err) {
      // The same open racing itself: one of the two wrote the view.
      if (!isUniqueViolation(err)) throw err;
    }
    return { counted: true as const, token: beacon.token, seq: beacon.seq };
  }

  /** The customer's records of a beacon: the pages read for the first time, the leave. */
  function beaconRecords(customer: ViewerCustomer, step: BeaconStep, leave: boolean) {
    const { view, now, env } = step;
    const out = step.change.firstRead.map((n) => {
      const page = step.change.pages.get(n) as PageDwell;
      const content = { fileViewDurationId: `${view.id}:${page.position}`, linkViewLogId: view.id, ...records.linkRef(step.link), page: n };
      return records.behaviour(customer, { visitorId: view.visitor_id, action: 'file_view_duration', when: now, content, env });
    });
    if (leave) out.push(records.leave(customer, { link: step.link, view, at: now, env }));
    return out;
  }

  /** Writes one beacon of an open view: false when another beacon moved the view on meanwhile. */
  async function applyBeacon(
    link: LinkRow,
    beacon: Beacon,
    visitor: VisitorRequest,
    found: { view: ViewRow; durations: DurationRow[]; file: ViewerFile | null },
  ) {
    const { view } = found;
    const now = Math.max(clock.now(), view.beacon_at ?? 0);
    const change = applyDwell(dwellStateOf(view, found.durations), beacon, now);
    const customer =
      view.customer_id === null ? null : ((await customers.viewerCustomers(link.app_id, [view.customer_id])).get(view.customer_id) ?? null);
    const env = customer === null ? null : ctx.visitors.describe(visitor.userAgent, visitor.ip);
    const leave = beacon.type === 'leave';
    // A closed view stays closed through a hide (the tail of leaving); reading again reopens it.
    const closedAt = leave ? now : beacon.type === 'hide' ? view.closed_at : null;
    return ingest.recordViewer({
      appId: link.app_id,
      now,
      linkTags: tagsOf(link),
      behaviours: customer === null ? [] : beaconRecords(customer, { link, view, change, now, env }, leave),
      progress: {
        viewLogId: view.id,
        linkId: link.id,
        fileVersion: found.file?.versionNumber ?? null,
        fromSeq: view.beacon_seq,
        totals: {
          totalDuration: change.totalMs,
          totalPage: change.pages.size,
          leaveTime: leave ? now : closedAt !== null ? view.left_at : null,
        },
        state: { beacon_seq: beacon.seq, beacon_at: now, closed_at: closedAt, left_at: leave ? now : view.left_at, last_page: beacon.page },
        durations: records.durations(link, found.file, change.changed, now),
      },
    });
  }

  /** A beacon of an open view: its dwell, the pages read for the first time, its leave. */
  async function viewBeacon(link: LinkRow, beacon: Beacon, visitor: VisitorRequest, file: ViewerFile | null) {
    const viewId = await signing.viewOf(beacon.token, link.id);
    if (viewId === null) throw tokenRefused();
    for (let attempt = 1; ; attempt += 1) {
      const found = await repo.view(reader, link.app_id, viewId);
      if (!found) throw publicFailure('view_not_found', 'No such view: a view starts with its open beacon');
      if (found.view.link_id !== link.id) throw publicFailure('view_token_invalid', 'The view belongs to another link');
      if (beacon.seq <= found.view.beacon_seq) return { duplicate: true };
      if (await applyBeacon(link, beacon, visitor, { ...found, file })) return { accepted: true };
      // Another beacon of the view moved it on meanwhile: read it again.
      if (attempt >= 3) return { duplicate: true };
    }
  }

  /** Closes one silent view: its leave at its last beacon, and its customer's leave record. */
  async function closeSilent(v: SilentView, customer: ViewerCustomer | null, now: number): Promise<boolean> {
    const link = { id: v.link_id, type: v.link_type, name: v.link_name, src: v.link_src };
    const pages = (await repo.view(reader, v.app_id, v.id))?.durations ?? [];
    let total = 0;
    for (const d of pages) total += Number(d.duration ?? 0);
    return ingest.recordViewer({
      appId: v.app_id,
      now,
      linkTags: tagsOf({ tags: v.link_tags }),
      behaviours: customer === null ? [] : [records.leave(customer, { link, view: v, at: v.beacon_at, env: null })],
      progress: {
        viewLogId: v.id,
        linkId: v.link_id,
        fileVersion: null,
        fromSeq: v.beacon_seq,
        totals: { totalDuration: total, totalPage: pages.length, leaveTime: v.beacon_at },
        state: { beacon_seq: v.beacon_seq, beacon_at: v.beacon_at, closed_at: now, left_at: v.beacon_at },
        durations: [],
      },
    });
  }

  /**
   * Closes views silent for SILENT_VIEW_MS (every project's): the leave time is the last beacon's,
   * and a customer's view gets its leave record. Several processes may sweep at once: a view is
   * closed once. Returns how many it closed.
   */
  async function sweep(): Promise<number> {
    const now = clock.now();
    const silent = await repo.silentViews(ctx.database.db, now - SILENT_VIEW_MS, SWEEP_BATCH);
    if (silent.length === 0) return 0;
    const customerIds = new Map<string, string[]>();
    for (const v of silent) if (v.customer_id !== null) customerIds.set(v.app_id, [...(customerIds.get(v.app_id) ?? []), v.customer_id]);
    const known = new Map<string, ViewerCustomer>();
    for (const [appId, ids] of customerIds) for (const [id, c] of await customers.viewerCustomers(appId, ids)) known.set(id, c);
    let closed = 0;
    for (const v of silent) {
      if (await closeSilent(v, v.customer_id === null ? null : (known.get(v.customer_id) ?? null), now)) closed += 1;
    }
    return closed;
  }

  const sweepJob: JobDefinition = {
    name: 'link-view-sweep',
    idleMs: SWEEP_EVERY_MS,
    tick: async () => ((await sweep()) > 0 ? 'worked' : 'idle'),
  };

  /** The beacon's link, open and unlocked, and how many pages its beacons may name. */
  async function beaconLink(shareToken: string, unlock: string | undefined) {
    const found = await gates.linkOf(shareToken);
    if (!('link' in found)) throw publicFailure('link_unavailable', 'The link does not open (unknown, disabled or expired)');
    const link = found.link;
    if (await gates.locked(link, unlock))
      throw publicFailure('link_unavailable', 'The link is locked: give its passcode (or e-mail address) first');
    if (link.type !== 1 || link.file1 === null) return { link, count: 1, file: null };
    const file = await viewerFile(link.app_id, link.file1);
    return { link, count: Math.max(1, file?.pageCount ?? 1), file };
  }

  return {
    /**
     * A beacon (docs/links.md, "Beacons"). Its answer says what came of it; a malformed, forged or
     * misplaced one is refused with a public failure (HTTP 400) and writes nothing. `countView` spends
     * the view's own budget of beacons (the route counts them) once the beacon names a view of the link.
     */
    async beacon(shareToken: string, body: unknown, visitor: VisitorRequest, countView: (viewId: string) => Promise<void>) {
      const { link, count, file } = await beaconLink(shareToken, visitor.unlock);
      let beacon: Beacon;
      try {
        beacon = parseBeacon(body, count);
      } catch (err) {
        if (err instanceof BeaconError) throw publicFailure('beacon_invalid', err.message);
        throw err;
      }
      const viewId = await signing.viewOf(beacon.token, link.id);
      if (viewId === null) throw tokenRefused();
      await countView(viewId);
      if (beacon.type === 'open') return openBeacon(link, beacon, visitor);
      return viewBeacon(link, beacon, visitor, file);
    },

    /** A redirect link's visit: a view started and closed at once (the viewer checked it counts). */
    visit(link: LinkRow, visitor: VisitorRequest): Promise<void> {
      return startView(link, visitor, { viewId: timeOrderedUuid(), seq: 1, now: clock.now(), page: null, close: true });
    },

    sweep,

    /** The background job `link-view-sweep` that runs the sweep (the composition root defines it). */
    sweepJob,
  };
}

export type LinkViews = ReturnType<typeof createLinkViews>;
