import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { badRequest, failure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { CampaignAdditions } from '../campaigns/service.ts';
import type { CustomerBulk, CustomerDataOps } from '../customers/service.ts';
import type { SequenceAutomation } from '../sequences/service.ts';
import { MAX_ACTIVE_JOBS, MAX_BULK_CUSTOMERS, MAX_ENROLL_CUSTOMERS, RECENT_JOBS } from './limits.ts';
import { BULK_ACTIONS, type BulkAction, type BulkJobResponse, type BulkOptions, type BulkRow, emptySummary, toBulkJob } from './mapper.ts';
import { bulkRepository as repo } from './repository.ts';

/** The list's filters whose matches a job takes ("all matching"), as the list takes them. */
export interface AllMatching {
  /** A member's id, or 'all' (Master/Admin: everyone's; Sales: their own). */
  svcUserId?: string | undefined;
  keyword?: string | undefined;
  groupId?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
}

/** A bulk request as the route takes it. */
export interface BulkRequest {
  action: string;
  customerIds?: string[] | undefined;
  all?: AllMatching | undefined;
  targetSvcUserId?: number | string | undefined;
  groupId?: string | undefined;
  campaignId?: string | undefined;
  sequenceId?: string | undefined;
  format?: string | undefined;
}

export interface BulkDeps {
  customers: { bulk: CustomerBulk; dataOps: Pick<CustomerDataOps, 'exportScope'> };
  campaigns: Pick<CampaignAdditions, 'check'>;
  sequences: Pick<SequenceAutomation, 'check'>;
  started: () => void;
}

const bulkNotFound = () => failure('bulk_not_found');
const tooMany = (most = MAX_BULK_CUSTOMERS) => failure('bulk_too_many', `A bulk action takes at most ${most} customers`);

/** The chosen ids: strings, each once, in the order sent. */
function chosenIds(ids: string[]): string[] {
  const out = [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ''))];
  if (out.length === 0) throw badRequest("Invalid parameter 'customerIds': no customer id");
  if (out.length > MAX_BULK_CUSTOMERS) throw tooMany();
  if (out.some((id) => id.length > 64)) throw failure('customer_not_found');
  return out;
}

/** A member id of the request, as a number. */
function memberId(v: number | string | undefined, name: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const s = String(v);
  if (!/^\d{1,10}$/.test(s)) throw badRequest(`Invalid parameter '${name}': a platform user id`);
  return Number(s);
}

/**
 * Bulk actions on customers as members start and follow them (docs/customers.md "Bulk actions"):
 * the request checked as the single-customer operation would check it (who may assign to whom, the
 * group, the campaign, the export), the customers frozen (chosen ones, or the ids "all matching"
 * the list's filters under the actor's visibility, now), and the job recorded, queued, for the
 * `customer-bulk` worker.
 */
export function createBulkJobs(ctx: AppContext, deps: BulkDeps) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock } = ctx;
  const { customers, campaigns } = deps;

  /** The action's options, checked before anything is recorded. */
  async function optionsOf(actor: Actor, action: BulkAction, req: BulkRequest): Promise<BulkOptions> {
    const allMatching = req.all !== undefined;
    switch (action) {
      case 'assign': {
        const target = memberId(req.targetSvcUserId, 'targetSvcUserId');
        if (target === undefined) throw badRequest("Missing required parameter 'targetSvcUserId'");
        if (!(await customers.bulk.checkAssignee(actor, target))) throw failure('target_svc_userid_invalid');
        return { allMatching, targetSvcUserId: target };
      }
      case 'group': {
        const groupId = req.groupId?.trim() ?? '';
        if (groupId === '') throw badRequest("Missing required parameter 'groupId'");
        if (groupId.length > 64) throw failure('group_not_found');
        await customers.bulk.checkGroup(actor, groupId);
        return { allMatching, groupId };
      }
      case 'campaign': {
        const campaignId = req.campaignId?.trim() ?? '';
        if (campaignId === '') throw badRequest("Missing required parameter 'campaignId'");
        await campaigns.check(actor, campaignId);
        return { allMatching, campaignId };
      }
      case 'export': {
        const format = req.format ?? 'csv';
        if (format !== 'csv' && format !== 'xlsx') throw badRequest("Invalid parameter 'format': csv or xlsx");
        await customers.dataOps.exportScope(actor.app.id, actor.userId);
        return { allMatching, format };
      }
      case 'delete':
        return { allMatching };
      case 'enroll': {
        const sequenceId = req.sequenceId?.trim() ?? '';
        if (sequenceId === '') throw badRequest("Missing required parameter 'sequenceId'");
        await deps.sequences.check(actor, sequenceId);
        return { allMatching, sequenceId };
      }
    }
  }

  /** The customers of the job: those chosen, or the ids matching the list's filters now (frozen). */
  async function customersOf(actor: Actor, req: BulkRequest, action: BulkAction): Promise<string[]> {
    if ((req.customerIds === undefined) === (req.all === undefined)) throw badRequest("Give either 'customerIds' or 'all'");
    if (req.customerIds !== undefined) return chosenIds(req.customerIds);
    const all = req.all as AllMatching;
    // As the list's group_id: 'all' (or none given) any group, '' no group.
    const groupId = all.groupId === 'all' ? undefined : all.groupId;
    const { svcUserId, ...filters } = all;
    // An enrolment takes more: its batches write rows and events in bulk.
    const most = action === 'enroll' ? MAX_ENROLL_CUSTOMERS : MAX_BULK_CUSTOMERS;
    const ids = await customers.bulk.matchingIds(actor, {
      ownerId: svcUserId ?? 'all',
      params: { ...filters, groupId },
      limit: most + 1,
    });
    if (ids.length > most) throw tooMany(most);
    if (ids.length === 0) throw badRequest('No customer matches the filters');
    return ids;
  }

  /** The job, if the caller may see it: their own, or any for Master and Admin. */
  async function visibleJob(actor: Actor, id: string): Promise<BulkRow> {
    const row = id.length > 64 ? undefined : await repo.find(db, actor.app.id, id);
    if (!row || (!actor.isManager && Number(row.created_by) !== actor.userId)) throw bulkNotFound();
    return row;
  }

  return {
    /** Starts a bulk action (any member, on the customers they may change): answers the job, queued. */
    async start(actor: Actor, req: BulkRequest): Promise<BulkJobResponse> {
      const action = req.action as BulkAction;
      if (!BULK_ACTIONS.includes(action)) throw badRequest(`Invalid parameter 'action': one of ${BULK_ACTIONS.join(', ')}`);
      if ((await repo.activeCount(db, actor.app.id)) >= MAX_ACTIVE_JOBS) throw failure('bulk_busy');
      const options = await optionsOf(actor, action, req);
      const ids = await customersOf(actor, req, action);
      const now = clock.now();
      const row: BulkRow = {
        id: timeOrderedUuid(now),
        app_id: actor.app.id,
        created_by: actor.userId,
        action,
        status: 'queued',
        options: JSON.stringify(options),
        customer_ids: JSON.stringify(ids),
        total: ids.length,
        processed: 0,
        succeeded: 0,
        failed: 0,
        failures: JSON.stringify(emptySummary()),
        result_path: null,
        error: null,
        lease_until: null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        // Counted again with the insert: two requests at once do not both pass the limit's check above.
        if ((await repo.activeCount(trx, actor.app.id)) >= MAX_ACTIVE_JOBS) throw failure('bulk_busy');
        await repo.insert(trx, row);
      });
      deps.started();
      return toBulkJob(row, clock);
    },

    /** A job's progress and result (its creator, Master, Admin). */
    async get(actor: Actor, id: string): Promise<BulkJobResponse> {
      return toBulkJob(await visibleJob(actor, id), clock);
    },

    /** The caller's recent jobs, newest first (Master and Admin: everyone's). */
    async recent(actor: Actor): Promise<BulkJobResponse[]> {
      return (await repo.recent(db, actor.app.id, actor.isManager ? null : actor.userId, RECENT_JOBS)).map((r) => toBulkJob(r, clock));
    },

    /** A finished export's file (its creator, Master, Admin), with its format. */
    async file(actor: Actor, id: string): Promise<{ body: Readable; format: 'csv' | 'xlsx' }> {
      const row = await visibleJob(actor, id);
      const format = (JSON.parse(row.options) as BulkOptions).format ?? 'csv';
      if (row.status !== 'done' || row.result_path === null || !fs.existsSync(row.result_path)) throw failure('bulk_file_not_ready');
      return { body: fs.createReadStream(row.result_path), format };
    },
  };
}

export type BulkJobs = ReturnType<typeof createBulkJobs>;
