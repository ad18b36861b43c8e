import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { AccessService } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { CustomerWritePath } from '../customers/service.ts';
import type { FileStamps, FileViewer } from '../files/service.ts';
import type { HistoriesService } from '../histories/service.ts';
import type { IngestService } from '../ingest/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import type { RoomReads } from '../rooms/service.ts';
import { createLinkAgreements } from './agreements.service.ts';
import { type AlertLink, type EarlierView, type ViewReader, type ViewReading, linkAlertsRepository } from './alerts.repository.ts';
import { createLinkAnalytics } from './analytics.service.ts';
import { createLinkForms } from './form.service.ts';
import { createLinkGatePosts } from './gate.service.ts';
import { createLinkGates } from './gates.ts';
import { createLinkManagement } from './manage.service.ts';
import { type OwnerNotifier, createOwnerNotifier } from './notifier.ts';
import { createLinkRecords } from './records.ts';
import { linksRepository as repo } from './repository.ts';
import { createRoomViewer } from './room-viewer.ts';
import { createLinkSigning } from './signing.ts';
import { type ViewerMail, createEmailCodes } from './verification.service.ts';
import { createViewerFiles } from './viewer-files.ts';
import { createViewerRooms } from './viewer-rooms.ts';
import { createLinkViewer } from './viewer.service.ts';
import { createLinkViews } from './views.service.ts';

export type { AlertLink, EarlierView, ViewReader, ViewReading as AlertViewReading } from './alerts.repository.ts';
export type { LinkInput } from './link-input.ts';
// What a customer merge moves of links' rows, built by the composition root for the merges module.
export { type LinkMergeMove, type LinkMergeMoves, createLinkMergeMoves } from './merge-moves.service.ts';
export type { CreateLink, EditLink, LinkManagement } from './manage.service.ts';
export type { AnalyticsRequest, LinkAnalytics } from './analytics.service.ts';
export { UNLOCK_TTL_S } from './signing.ts';
// The read model the histories module's reads of links and view logs start from.
export { linkHistoryReads } from './histories.repository.ts';
// What ingestion reads and writes of links and their views (the ingest module's LinkStore).
export { createLinkIngestStore } from './ingest.repository.ts';
// What the scoring module reads of views' pages and links' names, in the write path's transaction.
export { type LinkReadings, type ViewReading, createLinkReadings } from './readings.repository.ts';
export type { LinkHistoryReads } from './mapper.ts';
export { DEFAULT_FORM_FIELDS } from './viewer-model.ts';
// Customers' own (directed) links of a deck, made in another module's transaction (the sequences runner).
export { type OwnLink, type OwnLinks, createOwnLinks } from './own-links.service.ts';
export type { FileViewerModel, ViewerAnswer, VisitorRequest, WebViewerModel } from './viewer-model.ts';
export { HANDOFF_PARAM } from './viewer.service.ts';
export type { LinkViewer, PageImageRequest } from './viewer.service.ts';
export type { ViewerMail } from './verification.service.ts';
export type { LinkAgreements } from './agreements.service.ts';
export { CONTINUE_VIEW_MS } from './views.service.ts';
export { SILENT_VIEW_MS, SWEEP_EVERY_MS } from './view-sweep.service.ts';
export type { LinkViews } from './views.service.ts';
export type { RoomViewer } from './room-viewer.ts';
// This module's part of erasing customers, built by the composition root for erasure.
export { type LinkErasure, createLinkErasure } from './erasure.service.ts';

/**
 * What other modules read of links, built from the context alone: campaigns use it (the links
 * service is built after them: it takes campaigns' click resolver), and the alerts (a link's
 * direction and name, a view's reading).
 */
export function createLinkReads(ctx: AppContext) {
  const db = ctx.database.db;
  return {
    /** The id of a project's link with one of these share tokens (a campaign's material), or null. */
    async idByShareToken(appId: string, tokens: string[]): Promise<string | null> {
      return (await repo.byShareTokens(db, appId, tokens))[0]?.id ?? null;
    },
    /** The project's links among these ids: directed or not, name, file. */
    alertLinks(appId: string, ids: string[]): Promise<Map<string, AlertLink>> {
      return linkAlertsRepository.links(db, appId, ids);
    },
    /** The project's views among these ids: pages read and time so far, closed or not. */
    readings(appId: string, viewIds: string[]): Promise<Map<string, ViewReading>> {
      return linkAlertsRepository.readings(db, appId, viewIds);
    },
    /** The project's views among these ids: who read them (visitor, address as stored, the address they gave). */
    viewReaders(appId: string, viewIds: string[]): Promise<Map<string, ViewReader>> {
      return linkAlertsRepository.readers(db, appId, viewIds);
    },
    /** A customer's views of a link before the one of `seq`, by visitor and address, the most recently seen first. */
    earlierViews(appId: string, v: { linkId: string; customerId: string; seq: number }): Promise<EarlierView[]> {
      return linkAlertsRepository.earlier(db, appId, v);
    },
  };
}

export type LinkReads = ReturnType<typeof createLinkReads>;

/**
 * What a data room's deletion does to the links that show it (docs/rooms.md), in the rooms module's
 * transaction: they are disabled (their page answers 410), their views and counters stay.
 */
export function createRoomLinkDisabler() {
  return (trx: Kysely<Database>, appId: string, roomId: string, now: number): Promise<number> =>
    repo.disableOfRoom(trx, appId, roomId, now);
}

/**
 * Links made and shared from Rapport (docs/links.md), one service per caller: `management` (the
 * project's signed-in members make, edit and disable links), `viewer` (a link's recipients in their
 * browser: its pages, gates, agreement and form, and the hand-off to the project's site), `views` (view
 * recording: the viewer page's beacons and the background sweep of silent views) and `agreements`
 * (the acceptances of links' agreements, listed for the members who may edit the link). They share the
 * signing keys (signing.ts), the link gates (gates.ts), the file cache (viewer-files.ts) and the
 * record bodies (records.ts). Views, durations, behaviour records, counters and events are written
 * through the ingestion service's write path, as an integrator's records are.
 */
export function createLinksService(
  ctx: AppContext,
  deps: {
    access: AccessService;
    accounts: AccountsService;
    histories: HistoriesService;
    files: FileViewer;
    /** Page images and downloads with a watermark drawn in (a link with `watermark`). */
    stamps: FileStamps;
    customers: CustomerWritePath;
    ingest: IngestService;
    /** The project's site origins: a link to them carries the visitor's hand-off (docs/site-tracking.md). */
    projects: ProjectsService;
    /** Data rooms a link of type 4 shows (docs/rooms.md): who may share one, a room's tree, its documents. */
    rooms: Pick<RoomReads, 'usable' | 'viewerRoom' | 'holds'>;
    /** The project's audit log: the agreements' and the analytics' CSV exports are recorded there. */
    audit: AuditRecorder;
    /** Owners' first-open e-mails; by default by SMTP when SMTP_URL is set. */
    notifier?: OwnerNotifier;
    /** Whether a link's creator takes the first-open e-mail (the alerts' settings); none: never. */
    mailsFirstOpen?: (userId: number, appId: string, customerOwnerId: number) => Promise<boolean>;
    /** The customer a campaign's signed click parameter names (the campaigns service's), or null. */
    mailClick?: (appId: string, token: string) => Promise<{ customerId: string } | null>;
    /** The server's mail sender, for the e-mail gate's codes; none: the gate cannot mail codes. */
    viewerMail?: ViewerMail;
  },
) {
  const { access, accounts, histories, files, customers, ingest } = deps;
  const notifier = deps.notifier ?? createOwnerNotifier(ctx.config.smtpUrl, ctx.config.smtpFrom, ctx.logger);
  const signing = createLinkSigning(ctx.clock, () => accounts.serverSecret('viewer'));
  const records = createLinkRecords(ctx.clock, ctx.config.publicBaseUrl);
  const viewerFile = createViewerFiles(ctx.clock, files);
  const gates = createLinkGates(ctx, { access, signing });
  const viewerRoom = createViewerRooms(ctx.clock, deps.rooms);
  const roomViewer = createRoomViewer({ rooms: deps.rooms, viewerRoom, viewerFile });
  const views = createLinkViews(ctx, {
    accounts,
    customers,
    ingest,
    notifier,
    mailsFirstOpen: deps.mailsFirstOpen,
    gates,
    signing,
    records,
    viewerFile,
    roomDocument: roomViewer.document,
  });
  const forms = createLinkForms(ctx, { access, customers, ingest, records });
  const agreements = createLinkAgreements(ctx, { audit: deps.audit });
  const codes = createEmailCodes(ctx, { signing, mail: deps.viewerMail });
  const gatePosts = createLinkGatePosts(ctx, { projects: deps.projects, gates, signing, forms, codes, agreements });
  const viewer = createLinkViewer(ctx, {
    files,
    stamps: deps.stamps,
    projects: deps.projects,
    mailClick: deps.mailClick,
    gates,
    signing,
    views,
    forms,
    gatePosts,
    viewerFile,
    roomViewer,
  });
  const management = createLinkManagement(ctx, { accounts, files, customers, histories, mail: deps.viewerMail, rooms: deps.rooms });
  const analytics = createLinkAnalytics(ctx, { files, customers, audit: deps.audit });
  // The background jobs the composition root defines: silent views closed, spent codes forgotten.
  const jobs = [views.sweepJob, codes.expiryJob];
  return { management, viewer, views, agreements, analytics, roomViewer, jobs };
}

export type LinksService = ReturnType<typeof createLinksService>;
