import type { AppContext } from '../context.ts';
import type { BackgroundJobs } from '../lib/jobs.ts';
import { createAlertErasure, createAlertMergeMoves } from '../modules/alerts/service.ts';
import { createBehaviourErasure, createBehaviourRecords, createBehaviourService } from '../modules/behaviour/service.ts';
import { createCampaignErasure } from '../modules/campaigns/service.ts';
import {
  createCustomerCounts,
  createCustomerErasure,
  createCustomerIngestLookups,
  createCustomerScoreColumns,
  createCustomersService,
  customerHistoryReads,
  customerVisibilityReadModel,
  risenCustomers,
} from '../modules/customers/service.ts';
import { createErasureService } from '../modules/erasure/service.ts';
import { createDataOpsServices } from '../modules/dataops/service.ts';
import { createFileFacts } from '../modules/files/service.ts';
import { createGroupsService } from '../modules/groups/service.ts';
import { createHistoriesService, createHistoryErasure, createHistoryRecords } from '../modules/histories/service.ts';
import {
  createLinkErasure,
  createLinkIngestStore,
  createLinkMergeMoves,
  createLinkReadings,
  linkHistoryReads,
} from '../modules/links/service.ts';
import { createIngestService } from '../modules/ingest/service.ts';
import { createMergeErasure, createMergesService, mergeReadModel } from '../modules/merges/service.ts';
import { type ScoreKeeper, createScoringService } from '../modules/scoring/service.ts';
import { createSiteErasure, createSiteStore } from '../modules/site/service.ts';
import { createPlaybookErasure, createPlaybookMergeMoves } from '../modules/playbooks/service.ts';
import { createSequenceErasure, createSequenceMergeMoves } from '../modules/sequences/service.ts';
import { createTaskErasure, createTaskMergeMoves, createTasksServices, createTeamRecordReads } from '../modules/tasks/service.ts';
import type { IdentityServices } from './identity.ts';

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
export function createCustomerServices(ctx: AppContext, id: IdentityServices, jobs: BackgroundJobs) {
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

export type CustomerServices = ReturnType<typeof createCustomerServices>;
