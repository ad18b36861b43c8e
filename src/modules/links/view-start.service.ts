import type { AppContext } from '../../context.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { CustomerWritePath, ViewerCustomer } from '../customers/service.ts';
import type { ViewerFile } from '../files/service.ts';
import type { IngestService, ViewerWrite } from '../ingest/service.ts';
import { type LinkRow, tagsOf } from './mapper.ts';
import { type OwnerNotifier, createFirstOpenMail } from './notifier.ts';
import type { LinkRecords, VisitorEnv } from './records.ts';
import type { linksRepository } from './repository.ts';
import type { ViewerFiles } from './viewer-files.ts';
import type { VisitorRequest } from './viewer-model.ts';

/** The SQL a view's start runs: the module's repository (a spec hands a fake). */
export type ViewStartRepository = Pick<typeof linksRepository, 'visitorCustomer' | 'customerViewedBefore'>;

export interface ViewStartDeps {
  accounts: Pick<AccountsService, 'userById'>;
  customers: Pick<CustomerWritePath, 'viewerCustomers'>;
  ingest: Pick<IngestService, 'recordViewer'>;
  /** Owners' e-mails on a customer's first open. */
  notifier: OwnerNotifier;
  /** Whether the link's creator takes that e-mail in the project (their alert settings); none: no e-mail. */
  mailsFirstOpen?: (userId: number, appId: string, customerOwnerId: number) => Promise<boolean>;
  records: LinkRecords;
  viewerFile: ViewerFiles;
  repository: ViewStartRepository;
}

/** How a view starts: the first beacon's sequence, the page shown first (none for a redirect), closed at once or not. */
export interface ViewStart {
  viewId: string;
  seq: number;
  now: number;
  page: number | null;
  close: boolean;
  /** The address the reader passed the link's e-mail gate with (its code proved it: `verified`); none without a gate. */
  reader?: { email: string; verified: boolean } | null;
  /** The file the page shown first is of, when the caller has it (a room link's document). */
  file?: ViewerFile | null;
}

/** Who opens the link, as a view's first records name them. */
interface Opener {
  link: LinkRow;
  visitor: VisitorRequest;
  env: VisitorEnv;
  /** A file link's file as the view opens it (its version is the view's). */
  file: ViewerFile | null;
}

/**
 * A view's start (docs/links.md, "Beacons"), for view recording (views.service.ts): the page's `open`
 * beacon, or a redirect link's visit, which starts and closes one at once. Its view log, its
 * customer's first records (or, for a visitor not yet known, the owner's LinkView event) are written
 * through the ingestion service's write path; the link's creator may be mailed of a customer's first open.
 */
export function createViewStart(ctx: AppContext, deps: ViewStartDeps) {
  const { customers, ingest, records, viewerFile } = deps;
  const repo = deps.repository;
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
        reader_email: start.reader?.email ?? null,
        reader_verified: start.reader?.verified === true ? 1 : 0,
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
    const file =
      start.file !== undefined
        ? start.file
        : start.page === null || link.type !== 1
          ? null
          : await viewerFile(link.app_id, link.file1 ?? '');
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

  return { startView };
}
