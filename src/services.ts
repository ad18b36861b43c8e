import path from 'node:path';
import type { AppContext } from './context.ts';
import { Relay, relayJob } from './events/relay.ts';
import { LocalFileStorage } from './lib/file-storage.ts';
import { BackgroundJobs } from './lib/jobs.ts';
import { createAccessService } from './modules/access/service.ts';
import {
  type MembershipsOf,
  createAlertErasure,
  createAlertMergeMoves,
  createAlertsServices,
  createFirstOpenMailChoice,
} from './modules/alerts/service.ts';
import { createAccountsBase, createAccountsService } from './modules/accounts/service.ts';
import { createAuditService } from './modules/audit/service.ts';
import { actionSpec, createBehaviourErasure, createBehaviourRecords, createBehaviourService } from './modules/behaviour/service.ts';
import { createBulkServices } from './modules/bulk/service.ts';
import { createCampaignErasure, createCampaignServices } from './modules/campaigns/service.ts';
import { createClientsService } from './modules/clients/service.ts';
import {
  createCustomerCounts,
  createCustomerErasure,
  createCustomerIngestLookups,
  createCustomerScoreColumns,
  createCustomersService,
  customerHistoryReads,
  customerVisibilityReadModel,
  risenCustomers,
} from './modules/customers/service.ts';
import { createErasureService } from './modules/erasure/service.ts';
import { createDataOpsServices } from './modules/dataops/service.ts';
import { createFileFacts, createFilesServices } from './modules/files/service.ts';
import { createGroupsService } from './modules/groups/service.ts';
import { createHistoriesService, createHistoryErasure, createHistoryRecords } from './modules/histories/service.ts';
import { createLiveService } from './modules/live/service.ts';
import {
  createLinkErasure,
  createLinkIngestStore,
  createLinkMergeMoves,
  createLinkReadings,
  createLinkReads,
  createLinksService,
  createOwnLinks,
  linkHistoryReads,
} from './modules/links/service.ts';
import { createIngestService } from './modules/ingest/service.ts';
import { createMembersReadModel, createMembersService } from './modules/members/service.ts';
import { createMergeErasure, createMergesService, mergeReadModel } from './modules/merges/service.ts';
import { createMetadataService } from './modules/metadata/service.ts';
import { type ScoreKeeper, createScoringService } from './modules/scoring/service.ts';
import { type ProjectCreatedHook, createProjectLogos, createProjectsService } from './modules/projects/service.ts';
import {
  SWEEP_EVERY_MS as SITE_SWEEP_MS,
  createSiteErasure,
  createSiteService,
  createSiteStatus,
  createSiteStore,
} from './modules/site/service.ts';
import {
  type PlaybooksDeps,
  createPlaybookErasure,
  createPlaybookMergeMoves,
  createPlaybooksService,
} from './modules/playbooks/service.ts';
import {
  type SequencesDeps,
  createSequenceErasure,
  createSequenceMergeMoves,
  createSequenceServices,
} from './modules/sequences/service.ts';
import { createTaskErasure, createTaskMergeMoves, createTasksServices, createTeamRecordReads } from './modules/tasks/service.ts';
import { createNotificationChannels, createWebhooksService } from './modules/webhooks/service.ts';

/** Every loop of background work; the server starts them and stops them on SIGTERM (src/lib/jobs.ts). */
function createJobs(ctx: AppContext): BackgroundJobs {
  const jobs = new BackgroundJobs(ctx.clock, {
    ticked: (job, outcome, seconds) => ctx.observer.jobTicked(job, outcome, seconds),
    failed: (job, err, retryInMs) => ctx.logger.warn({ err, job, retryInMs }, `${job}: failed; will retry`),
  });
  // The event relay (outbox to webhooks and NATS) in this process, unless RAPPORT_EMBEDDED_RELAY=false
  // leaves it to `rapport relay` (or, under WORKERS, to the first worker).
  if (ctx.config.embeddedRelay) jobs.define(relayJob(new Relay(ctx)));
  return jobs;
}

/** Who is who: accounts and tokens, OAuth clients, memberships and roles, projects, their fields and audit log. */
function createIdentityServices(ctx: AppContext, jobs: BackgroundJobs) {
  // Memberships as other modules read them (members joined to their projects), from the database alone.
  const memberReads = createMembersReadModel(ctx.database);
  // Tokens before clients: a revoked client's tokens go with it.
  const accountsBase = createAccountsBase(ctx, memberReads.salesCountOf);
  const clients = createClientsService(ctx, accountsBase.tokens.dropClientTokens);
  const accounts = createAccountsService(ctx, accountsBase, clients);
  const access = createAccessService(memberReads.membership);
  // So nothing grows without bound: expired access and refresh tokens, expired verification codes and
  // failed log-ins older than the throttle window, every ten minutes.
  jobs.define({
    name: 'prune-expired',
    idleMs: 10 * 60_000,
    async tick() {
      const removed = await accounts.pruneExpired();
      if (removed > 0) ctx.logger.debug({ removed }, 'pruned expired tokens and codes');
      return 'idle';
    },
  });
  const audit = createAuditService(ctx, access);
  const metadata = createMetadataService(ctx, access);
  // A new project gets the default customer attributes in the transaction that creates it.
  const projectCreated: readonly ProjectCreatedHook[] = [(trx, app) => metadata.seedDefaults(trx, app.id)];
  const members = createMembersService(ctx, { access, accounts, audit: audit.record, reads: memberReads });
  const projects = createProjectsService(ctx, {
    hooks: projectCreated,
    audit: audit.record,
    members: { addCreator: members.addCreator, projectsOf: memberReads.projectsOf },
  });
  return { clients, accounts, access, audit, metadata, members, projects, memberReads };
}

type IdentityServices = ReturnType<typeof createIdentityServices>;

/** Erasure of customers: each module whose tables name customers erases its own rows, in one transaction. */
function createErasure(ctx: AppContext, id: IdentityServices, scoring: ScoreKeeper) {
  return createErasureService(ctx, {
    access: id.access,
    audit: id.audit.record,
    owners: {
      customers: createCustomerErasure(ctx.database),
      merges: createMergeErasure(ctx.database),
      histories: createHistoryErasure(ctx.database),
      links: createLinkErasure(ctx.database),
      behaviour: createBehaviourErasure(ctx.database),
      site: createSiteErasure(ctx.database),
      campaigns: createCampaignErasure(ctx.database),
      tasks: createTaskErasure(ctx.database),
      alerts: createAlertErasure(ctx.database),
      sequences: createSequenceErasure(ctx),
      playbooks: createPlaybookErasure(ctx.database),
      scoring,
    },
  });
}

/** Customers and what they did: groups, histories, behaviour, merges, erasure, ingestion, imports and exports. */
function createCustomerServices(ctx: AppContext, id: IdentityServices, jobs: BackgroundJobs) {
  const { access, accounts, audit, metadata, members, projects } = id;
  // Groups show their live customers, counted by the customers module.
  const groups = createGroupsService(ctx, access, members, createCustomerCounts(ctx).liveByGroup);
  // Histories read links, their view logs and customers through the owners' read models.
  const histories = createHistoriesService(
    ctx,
    access,
    { links: linkHistoryReads, customers: customerHistoryReads },
    projects.shareDomains.publicBase,
  );
  // The overview and the record list read the customer (and a survivor's pending merges) in their own
  // statements, through the customers and merges modules' read models.
  // The timeline's records of the team's notes and tasks join them through the tasks module's reads.
  const behaviour = createBehaviourService(ctx, access, histories, {
    customers: customerVisibilityReadModel,
    merges: mergeReadModel,
    team: createTeamRecordReads(ctx, customerVisibilityReadModel),
  });
  // Behaviour records and counters, calls, clues and posts as ingestion and merges write them, through their owners.
  const behaviourRecords = createBehaviourRecords(ctx.database);
  const historyRecords = createHistoryRecords(ctx.database);
  // Engagement scores, kept by ingestion's write path from the records it writes: views' pages through links,
  // files' page counts through files, the customers' score columns through customers; its job scores a
  // project's customers again from their records. The customers' lists and detail show them.
  const scoreColumns = createCustomerScoreColumns(ctx.database);
  const scoring = createScoringService(ctx, {
    access,
    audit: audit.record,
    readings: createLinkReadings(ctx.database),
    files: createFileFacts(),
    customers: scoreColumns,
    risenCustomers,
    behaviour: behaviourRecords,
    defineJob: (def) => jobs.define(def),
  });
  // One service per kind of caller (the API, the write path, imports and exports, merges) on one create path;
  // a new customer's `create` record goes through the behaviour service.
  const customers = createCustomersService(ctx, {
    access,
    metadata,
    groups,
    members,
    audit: audit.record,
    behaviour,
    regionOf: (appId) => projects.region(appId),
    scores: scoring.view,
  });
  // Customers stored before phone keys existed get theirs in the background (docs/customers.md).
  jobs.define(customers.phoneKeys);
  // Merging customers; their history moves to the survivor in the background (ADR 0027).
  const merges = createMergesService(ctx, {
    access,
    members,
    customers: customers.merging,
    audit: audit.record,
    defineJob: (def) => jobs.define(def),
    behaviour: behaviourRecords,
    histories: historyRecords,
    links: createLinkMergeMoves(ctx.database),
    tasks: createTaskMergeMoves(ctx.database),
    alerts: createAlertMergeMoves(ctx.database),
    sequences: createSequenceMergeMoves(ctx),
    playbooks: createPlaybookMergeMoves(ctx.database),
    scores: scoring.keeper,
  });
  // Erasure asks each module whose tables name customers to erase its own rows, in one transaction.
  const erasure = createErasure(ctx, id, scoring.keeper);
  // Ingestion writes each record table through its owner, in its own transaction and statements:
  // links and their views, history records, behaviour records and counters, the site's visits and
  // anonymous records; it looks stored ids up through their owners too.
  // Ingested Customer items go through the same validated write path as the create endpoint.
  const ingest = createIngestService(ctx, {
    access,
    accounts,
    projects,
    histories: historyRecords,
    behaviour: behaviourRecords,
    links: createLinkIngestStore(ctx.database),
    customers: createCustomerIngestLookups(ctx.database),
    scores: scoring.keeper,
    site: createSiteStore(ctx),
    writeCustomers: async (trx, appId, items, now) => {
      const result = await customers.writePath.createManyInTransaction(trx, appId, items, { now, validate: 'ingest' });
      return 'failed' in result ? result.failed : null;
    },
  });
  // Imports write through the customers service's create path, run by the job customer-import (which an
  // import started in this process starts); exports read through it.
  const dataops = createDataOpsServices(ctx, { customers: customers.dataOps, audit: audit.record, defineJob: (def) => jobs.define(def) });
  // Notes, tasks and logged calls on customers: their timeline records through behaviour, calls through
  // ingestion's write path; tasks come due are announced by the job task-due.
  const tasks = createTasksServices(ctx, {
    access,
    customers,
    records: behaviourRecords,
    ingest,
    readModel: customerVisibilityReadModel,
  });
  jobs.define(tasks.due.job);
  return { groups, histories, behaviour, behaviourRecords, customers, merges, erasure, ingest, dataops, tasks, scoring };
}

type CustomerServices = ReturnType<typeof createCustomerServices>;

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
function createOutreachServices(ctx: AppContext, id: IdentityServices, cs: CustomerServices, jobs: BackgroundJobs) {
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
  const links = createLinksService(ctx, {
    access,
    accounts,
    histories,
    files: files.viewer,
    customers: customers.writePath,
    ingest,
    projects,
    mailClick: mail.tracking.identifyClick,
    // A customer's first open is mailed to the link's creator as their alert settings say.
    mailsFirstOpen: createFirstOpenMailChoice(ctx, { memberships }),
  });
  // The site snippet's records: written through ingestion's write path as the viewer's are.
  // A shared link's form reaches the site visitor it handed off to the project's site; a campaign's
  // tracked click landing on the site ties the visitor to its recipient and counts the return visit.
  const site = createSiteService(ctx, {
    projects,
    customers: customers.writePath,
    ingest,
    handoffs: links.viewer.handedOffCustomer,
    clickTokens: mail.tracking.resolveClick,
  });
  // Views of shared links and site visits that fell silent get their end recorded (several processes
  // may sweep at once: each is closed once).
  jobs.define(links.views.sweepJob);
  jobs.define({ name: 'site-visit-sweep', idleMs: SITE_SWEEP_MS, tick: async () => ((await site.sweep()) > 0 ? 'worked' : 'idle') });
  // Alerts where salespeople are: the feed's events become signals (job alert-evaluate), told in the inbox,
  // by e-mail through the campaigns' transport (jobs alert-mail, alert-digest) and on the project's chat
  // channels (their deliveries sent by the relay).
  const alerts = createAlertsServices(ctx, {
    access,
    accounts,
    customers,
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

/**
 * The composition root: every service, built once from the context and given, when it is built,
 * the services (or narrow functions) it needs; shared by the HTTP app, the CLI and workers. A
 * service is built after those it needs, so nothing is wired afterwards: identity first, then
 * customers and their records, then what reaches customers.
 */
export function createServices(ctx: AppContext) {
  const jobs = createJobs(ctx);
  const identity = createIdentityServices(ctx, jobs);
  const customers = createCustomerServices(ctx, identity, jobs);
  return { jobs, ...identity, ...customers, ...createOutreachServices(ctx, identity, customers, jobs) };
}

export type Services = ReturnType<typeof createServices>;
