import path from 'node:path';
import type { AppContext } from '../context.ts';
import { LocalFileStorage } from '../lib/file-storage.ts';
import type { BackgroundJobs } from '../lib/jobs.ts';
import { type MembershipsOf, createAlertsServices, createFirstOpenMailChoice } from '../modules/alerts/service.ts';
import { actionSpec } from '../modules/behaviour/service.ts';
import { createBulkServices } from '../modules/bulk/service.ts';
import { type CampaignTransport, createCampaignServices } from '../modules/campaigns/service.ts';
import { createFileFacts, createFilesServices } from '../modules/files/service.ts';
import { createLiveService } from '../modules/live/service.ts';
import {
  type ViewerMail,
  createLinkReadings,
  createLinkReads,
  createLinksService,
  createOwnLinks,
  createRoomLinkDisabler,
} from '../modules/links/service.ts';
import { createProjectLogos } from '../modules/projects/service.ts';
import { createRoomsServices } from '../modules/rooms/service.ts';
import { SWEEP_EVERY_MS as SITE_SWEEP_MS, createSiteService, createSiteStatus } from '../modules/site/service.ts';
import { type PlaybooksDeps, createPlaybooksService } from '../modules/playbooks/service.ts';
import { type SequencesDeps, createSequenceServices } from '../modules/sequences/service.ts';
import { createNotificationChannels, createWebhooksService } from '../modules/webhooks/service.ts';
import type { CustomerServices } from './customers.ts';
import type { IdentityServices } from './identity.ts';

/**
 * Sequences (definitions, send settings, enrolments and their exits: the job sequence-feed reads the feed
 * for unsubscribes, bounces, forms and deleted customers; the job sequence-runner runs the steps) and bulk actions on customers (jobs run by
 * customer-bulk, which a job started in this process starts), each batch through the customers service's
 * bulk steps, the campaigns' additions, the sequences' enrolment, or dataops' export.
 */
function createEnrolmentServices(
  ctx: AppContext,
  deps: {
    access: IdentityServices['access'];
    customers: CustomerServices['customers'];
    campaigns: ReturnType<typeof createCampaignServices>['additions'];
    exports: CustomerServices['dataops']['exports'];
    running: SequencesDeps['running'];
  },
  jobs: BackgroundJobs,
) {
  const { access, customers } = deps;
  const sequences = createSequenceServices(ctx, {
    access,
    customers,
    links: createLinkReads(ctx),
    running: deps.running,
    defineJob: (def) => jobs.define(def),
  });
  const bulk = createBulkServices(ctx, {
    access,
    customers,
    campaigns: deps.campaigns,
    sequences: sequences.automation,
    exports: deps.exports,
    defineJob: (def) => jobs.define(def),
  });
  return { sequences, bulk };
}

/** What reaches customers and tells who read it: webhooks, files, live events, campaigns, links, the site snippet. */
export function createOutreachServices(ctx: AppContext, id: IdentityServices, cs: CustomerServices, jobs: BackgroundJobs) {
  const { access, accounts, audit, projects } = id;
  const { histories, customers, ingest } = cs;
  const webhooks = createWebhooksService(ctx, access, audit.record);
  // Notification channels: webhooks of purpose alerts (chat robots), whose deliveries the relay sends.
  const channels = createNotificationChannels(ctx, { audit: audit.record });
  // Uploaded files and their pages under DATA_DIR/files, whichever database runs; their pages are drawn
  // by the job file-render, which an upload in this process starts.
  const storage = new LocalFileStorage(path.join(ctx.config.dataDir, 'files'));
  const files = createFilesServices(ctx, { storage, audit: audit.record, defineJob: (def) => jobs.define(def) });
  // Projects' logos, in the same storage under <appId>/logo/.
  const logos = createProjectLogos(ctx, { storage, audit: audit.record });
  const live = createLiveService(ctx, { access, accounts, histories, defineJob: (def) => jobs.define(def) });
  // E-mail campaigns: composed by members, mailed by a background job (where MAIL_WORKER is on), tracked
  // from the recipients' mail; their Post records and behaviour records go through ingestion's write path.
  const mail = createCampaignServices(ctx, {
    access,
    accounts,
    ingest,
    projects,
    customers,
    links: createLinkReads(ctx),
    histories,
    defineJob: ctx.config.mailWorker ? (def) => jobs.define(def) : null,
  });
  // The sequences runner's steps: mail through the campaigns' queue, tasks of the sending member, the customer's own link of the deck.
  const ownLinks = createOwnLinks(ctx, projects.shareDomains.publicBase);
  const running = { mail: mail.sequenceMail, tasks: cs.tasks.tasks, ownLinks, accounts, files: files.viewer };
  const enrolment = { access, customers, campaigns: mail.additions, exports: cs.dataops.exports, running };
  const { sequences, bulk } = createEnrolmentServices(ctx, enrolment, jobs);
  // Links shared from Rapport: their management, their public viewer and view recording; views are written
  // through ingestion's write path; a campaign's tracked click on a share link tells the viewer which
  // customer is viewing.
  // A user's active memberships in live projects: who the alerts (and the links' first-open e-mail) may tell.
  const memberships: MembershipsOf = async (userId) =>
    (await id.memberReads.projectsOf(userId)).map((p) => ({ id: p.id, name: p.name, role: p.role }));
  // Data rooms: the project's files in folders, shared by a link of type 4; a deleted room's links are disabled.
  const rooms = createRoomsServices(ctx, { files: createFileFacts(), disableLinks: createRoomLinkDisabler() });
  const links = createLinksService(ctx, {
    access,
    accounts,
    histories,
    files: files.viewer,
    stamps: files.stamps,
    customers: customers.writePath,
    ingest,
    projects,
    rooms: rooms.reads,
    audit: audit.record,
    mailClick: mail.tracking.identifyClick,
    // The e-mail gate's codes leave by the campaigns' transport; a customer's first open is mailed to the
    // link's creator as their alert settings say.
    viewerMail: viewerMailOf(mail.transport),
    mailsFirstOpen: createFirstOpenMailChoice(ctx, { memberships }),
  });
  const site = createSite(ctx, { projects, cs, links, tracking: mail.tracking }, jobs);
  // Alerts where salespeople are: the feed's events become signals (job alert-evaluate), told in the inbox,
  // by e-mail through the campaigns' transport (jobs alert-mail, alert-digest) and on the project's chat
  // channels (their deliveries sent by the relay).
  const alerts = createAlertsServices(ctx, {
    access,
    accounts,
    customers,
    contacts: customers.writePath,
    links: createLinkReads(ctx),
    files: files.viewer,
    channels,
    projects,
    mail: mail.transport,
    memberships,
    defineJob: (def) => jobs.define(def),
  });
  const playbooks = createPlaybooks(ctx, { id, cs, notices: alerts.notices, sequences: sequences.automation }, jobs);
  return {
    playbooks,
    webhooks,
    channels,
    files,
    live,
    links,
    rooms,
    site,
    siteStatus: createSiteStatus(ctx),
    logos,
    campaigns: mail.composer,
    campaignSender: mail.sender,
    campaignTracking: mail.tracking,
    mailTransport: mail.transport,
    bulk,
    sequences,
    alerts,
  };
}

/**
 * The site snippet's records: written through ingestion's write path as the viewer's are. A shared
 * link's form reaches the site visitor it handed off to the project's site; a campaign's tracked click
 * landing on the site ties the visitor to its recipient and counts the return visit. Views of shared
 * links and site visits that fell silent get their end recorded (several processes may sweep at once:
 * each is closed once); the e-mail gate's spent codes are forgotten.
 */
function createSite(
  ctx: AppContext,
  deps: {
    projects: IdentityServices['projects'];
    cs: CustomerServices;
    links: ReturnType<typeof createLinksService>;
    tracking: ReturnType<typeof createCampaignServices>['tracking'];
  },
  jobs: BackgroundJobs,
) {
  const { links, cs } = deps;
  const site = createSiteService(ctx, {
    projects: deps.projects,
    customers: cs.customers.writePath,
    ingest: cs.ingest,
    handoffs: links.viewer.handedOffCustomer,
    clickTokens: deps.tracking.resolveClick,
  });
  for (const job of links.jobs) jobs.define(job);
  jobs.define({ name: 'site-visit-sweep', idleMs: SITE_SWEEP_MS, tick: async () => ((await site.sweep()) > 0 ? 'worked' : 'idle') });
  return site;
}

/**
 * Playbooks: the feed's records matched against each project's playbooks (job playbook-evaluate), their
 * actions through the tasks, alerts, customers and sequences services; webhook calls by playbook-webhooks.
 */
function createPlaybooks(
  ctx: AppContext,
  deps: { id: IdentityServices; cs: CustomerServices; notices: PlaybooksDeps['notices']; sequences: PlaybooksDeps['sequences'] },
  jobs: BackgroundJobs,
) {
  const { id, cs } = deps;
  return createPlaybooksService(ctx, {
    access: id.access,
    audit: id.audit.record,
    customers: cs.customers,
    groups: cs.groups,
    tasks: cs.tasks.tasks,
    notices: deps.notices,
    sequences: deps.sequences,
    links: createLinkReads(ctx),
    readings: createLinkReadings(ctx.database),
    files: createFileFacts(),
    scores: cs.scoring.view,
    isCatalogueAction: (action) => actionSpec(action) !== undefined,
    recordsSince: async (appId, q) =>
      (await cs.behaviourRecords.projectRecordsSince({ appId, ...q })).map((r) => ({
        id: r.id,
        customerId: r.customer_id,
        action: r.action,
        at: Number(r.when_at),
        createdAt: Number(r.created_at),
        content: contentObject(r.content),
      })),
    defineJob: (def) => jobs.define(def),
  });
}

/** A record's content (JSON object text) as an object; {} for none or unreadable text. */
function contentObject(text: string | null): Record<string, unknown> {
  try {
    const v = text === null ? null : (JSON.parse(text) as unknown);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The viewer's mail (the e-mail gate's codes) through the campaigns' transport: its pool, its send rate, the project's From. */
function viewerMailOf(transport: CampaignTransport): ViewerMail {
  return {
    configured: () => transport.configured(),
    async send(appId, m) {
      const mailer = await transport.mailer();
      if (mailer === null) throw new Error('SMTP_URL is not set');
      await transport.turn();
      await mailer.sendMail({ from: await transport.from(appId), to: m.to, subject: m.subject, text: m.text });
    },
  };
}
