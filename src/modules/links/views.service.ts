import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/index.ts';
import { publicFailure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { CustomerWritePath, ViewerCustomer } from '../customers/service.ts';
import type { ViewerFile } from '../files/service.ts';
import type { IngestService } from '../ingest/service.ts';
import {
  type Beacon,
  BeaconError,
  type DwellChange,
  type PageDwell,
  applyDwell,
  beaconDoc,
  beaconObject,
  dwellStateOf,
  parseBeacon,
} from './beacons.ts';
import { type LinkGates, emailGated } from './gates.ts';
import { type DurationRow, type LinkRow, type ViewRow, tagsOf } from './mapper.ts';
import type { OwnerNotifier } from './notifier.ts';
import type { LinkRecords, VisitorEnv } from './records.ts';
import { linksRepository } from './repository.ts';
import type { LinkSigning } from './signing.ts';
import type { ViewerFiles } from './viewer-files.ts';
import { type ViewStart, createViewStart } from './view-start.service.ts';
import { createViewSweep } from './view-sweep.service.ts';
import type { VisitorRequest } from './viewer-model.ts';

/** A reload within this time continues the visitor's last view of the link instead of starting one. */
export const CONTINUE_VIEW_MS = 30 * 60 * 1000;

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
  /** A document of a room link's room (docs/rooms.md), or null: not one of its documents (room-viewer.ts). */
  roomDocument?: (link: LinkRow, fileId: string) => Promise<ViewerFile | null>;
  repository?: ViewsRepository;
}

/**
 * What a beacon is about: how many pages it may name, the file they are pages of, and, for a room
 * link, `doc`: the document (its file id), or null for the room's own page (no page is read there).
 */
interface BeaconTarget {
  count: number;
  file: ViewerFile | null;
  doc?: string | null;
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
 * closes one at once: view-start.service.ts), beacons credit the pages read, a leave or silence
 * (view-sweep.service.ts) closes it. Views, durations, behaviour records, counters and events are
 * written through the ingestion service's write path.
 */
export function createLinkViews(ctx: AppContext, deps: LinkViewsDeps) {
  const { customers, ingest, gates, signing, records, viewerFile } = deps;
  const repo = deps.repository ?? linksRepository;
  const reader = ctx.database.reader;
  const { clock } = ctx;
  const starts = createViewStart(ctx, { ...deps, repository: repo });
  const sweeper = createViewSweep(ctx, { customers, ingest, records, repository: repo });

  /** The address the reader passed the link's e-mail gate with, as their unlock cookie carries it (a view records it). */
  async function readerOf(link: LinkRow, visitor: VisitorRequest): Promise<ViewStart['reader']> {
    if (!emailGated(link)) return null;
    const unlocked = await gates.unlockedOf(link, visitor.unlock);
    if (!unlocked.gate || unlocked.email === undefined) return null;
    return { email: unlocked.email, verified: unlocked.verified === true };
  }

  /** A beacon that starts a view, or continues the visitor's recent one (a reload within 30 minutes). */
  async function openBeacon(link: LinkRow, beacon: Beacon, visitor: VisitorRequest, target: BeaconTarget) {
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
      // A room link's page goes on with its document's pages only.
      const dwell: Record<string, number> = {};
      const found = await repo.view(reader, link.app_id, recent.id);
      for (const d of found?.durations ?? [])
        if (target.doc === undefined || d.file_id === target.doc) dwell[String(d.page_index)] = Number(d.duration ?? 0);
      // Within a room, opening the next document (or the room again) goes on reading: the view reopens from now.
      if (found && target.doc !== undefined)
        await applyBeacon(link, { ...beacon, type: 'page', seq: found.view.beacon_seq }, visitor, { ...found, target });
      return { counted: true as const, continued: true, token: await signing.viewToken(link.id, recent.id), seq: recent.beacon_seq, dwell };
    }
    const page = target.doc === null ? null : beacon.page;
    try {
      const reader = await readerOf(link, visitor);
      await starts.startView(link, visitor, { viewId, seq: beacon.seq, now, page, close: false, file: target.file, reader });
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
    found: { view: ViewRow; durations: DurationRow[]; target: BeaconTarget },
  ) {
    const { view, target } = found;
    const now = Math.max(clock.now(), view.beacon_at ?? 0);
    // A room's own page reads no page: its beacons keep the view going (page 0, no time).
    const read = target.doc === null ? { page: 0, dwell: new Map<number, number>() } : beacon;
    const change = applyDwell(dwellStateOf(view, found.durations, target.doc), read, now);
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
        fileVersion: target.file?.versionNumber ?? null,
        fromSeq: view.beacon_seq,
        totals: {
          totalDuration: change.totalMs,
          totalPage: change.pageCount,
          leaveTime: leave ? now : closedAt !== null ? view.left_at : null,
        },
        state: { beacon_seq: beacon.seq, beacon_at: now, closed_at: closedAt, left_at: leave ? now : view.left_at, last_page: beacon.page },
        durations: records.durations(link, target.file, change.changed, now),
      },
    });
  }

  /** A beacon of an open view: its dwell, the pages read for the first time, its leave. */
  async function viewBeacon(link: LinkRow, beacon: Beacon, visitor: VisitorRequest, target: BeaconTarget) {
    const viewId = await signing.viewOf(beacon.token, link.id);
    if (viewId === null) throw tokenRefused();
    for (let attempt = 1; ; attempt += 1) {
      const found = await repo.view(reader, link.app_id, viewId);
      if (!found) throw publicFailure('view_not_found', 'No such view: a view starts with its open beacon');
      if (found.view.link_id !== link.id) throw publicFailure('view_token_invalid', 'The view belongs to another link');
      if (beacon.seq <= found.view.beacon_seq) return { duplicate: true };
      if (await applyBeacon(link, beacon, visitor, { ...found, target })) return { accepted: true };
      // Another beacon of the view moved it on meanwhile: read it again.
      if (attempt >= 3) return { duplicate: true };
    }
  }

  /** The beacon's link, open and unlocked. */
  async function beaconLink(shareToken: string, unlock: string | undefined, within: string | null | undefined): Promise<LinkRow> {
    const found = await gates.linkOf(shareToken, within);
    if (!('link' in found)) throw publicFailure('link_unavailable', 'The link does not open (unknown, disabled or expired)');
    const link = found.link;
    if (await gates.locked(link, unlock))
      throw publicFailure('link_unavailable', 'The link is locked: give its passcode or e-mail address, or accept its agreement, first');
    return link;
  }

  /** What a beacon of the link is about: its file's pages; a room link's document (`doc`), checked against the room. */
  async function targetOf(link: LinkRow, value: Record<string, unknown>): Promise<BeaconTarget> {
    if (link.type === 4) {
      const doc = beaconDoc(value);
      if (doc === null) return { count: 1, file: null, doc: null };
      const file = deps.roomDocument === undefined ? null : await deps.roomDocument(link, doc);
      if (file === null) throw new BeaconError('doc is not a document of the room');
      return { count: Math.max(1, file.pageCount), file, doc: file.id };
    }
    if (link.type !== 1 || link.file1 === null) return { count: 1, file: null };
    const file = await viewerFile(link.app_id, link.file1);
    return { count: Math.max(1, file?.pageCount ?? 1), file };
  }

  return {
    /**
     * A beacon (docs/links.md, "Beacons"). Its answer says what came of it; a malformed, forged or
     * misplaced one is refused with a public failure (HTTP 400) and writes nothing. `countView` spends
     * the view's own budget of beacons (the route counts them) once the beacon names a view of the link.
     */
    async beacon(shareToken: string, body: unknown, visitor: VisitorRequest, countView: (viewId: string) => Promise<void>) {
      const link = await beaconLink(shareToken, visitor.unlock, visitor.within);
      let beacon: Beacon;
      let target: BeaconTarget;
      try {
        const value = beaconObject(body);
        target = await targetOf(link, value);
        beacon = parseBeacon(value, target.count);
      } catch (err) {
        if (err instanceof BeaconError) throw publicFailure('beacon_invalid', err.message);
        throw err;
      }
      const viewId = await signing.viewOf(beacon.token, link.id);
      if (viewId === null) throw tokenRefused();
      await countView(viewId);
      if (beacon.type === 'open') return openBeacon(link, beacon, visitor, target);
      return viewBeacon(link, beacon, visitor, target);
    },

    /** A redirect link's visit: a view started and closed at once (the viewer checked it counts). */
    async visit(link: LinkRow, visitor: VisitorRequest): Promise<void> {
      const reader = await readerOf(link, visitor);
      await starts.startView(link, visitor, { viewId: timeOrderedUuid(), seq: 1, now: clock.now(), page: null, close: true, reader });
    },

    /** `sweep()`, which closes silent views, and `sweepJob`, the background job that runs it (view-sweep.service.ts). */
    ...sweeper,
  };
}

export type LinkViews = ReturnType<typeof createLinkViews>;
