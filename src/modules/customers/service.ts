import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { AccessService, Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { BehaviourService } from '../behaviour/service.ts';
import type { GroupsService } from '../groups/service.ts';
import type { MembersService } from '../members/service.ts';
import type { MetadataService } from '../metadata/service.ts';
import { createCustomerApi } from './api.service.ts';
import { createCustomerBulk } from './bulk.service.ts';
import { createCreatePath } from './create-path.ts';
import { createCustomerDataOps } from './data.service.ts';
import { createFieldOps, parseExt } from './fields.ts';
import { createCustomerMerging } from './merging.service.ts';
import { customerListReads } from './list.repository.ts';
import { createCustomerLists } from './list.service.ts';
import { type MailRecipient, type MailRecipientQuery, customerReads, customersRepository as repo, fieldValueOf } from './repository.ts';
import type { CustomerScoreView } from './mapper.ts';
import { createCustomerWritePath } from './write-path.service.ts';
import { phoneKeysJob } from './phone-keys.service.ts';

// The module's public surface: its services' types, the inputs they take, and pure helpers other
// modules use on customer rows they read themselves (merges).
export { toCustomer } from './mapper.ts';
export type {
  CustomerIdsQuery,
  CustomerResponse,
  CustomerRow,
  CustomerScoreShown,
  CustomerScoreView,
  CustomerVisibilityReadModel,
} from './mapper.ts';
// The read model the behaviour module's reads start from (one customer's visibility, in the same statement).
export { customerVisibilityReadModel } from './visibility.repository.ts';
export { DEFAULT_CREATE_WAY, FORM_CREATE_WAY, IMPORT_CREATE_WAY, customerRecord } from './records.ts';
export type { CustomerApi, CreateInput, EditInput, ListInput } from './api.service.ts';
export type { BulkFailure, BulkOutcome, CustomerBulk, MatchingInput } from './bulk.service.ts';
export type { CustomerLists, ListParams, ResolvedList } from './list.service.ts';
export type { CustomerWritePath, FormInput, ViewerCustomer } from './write-path.service.ts';
export type { CustomerDataOps, ImportOptions, ImportOutcome } from './data.service.ts';
export type { CustomerMerging, MergeOverrides, MergedCustomers, RepointedCustomers } from './merging.service.ts';
export type { DuplicateKind, DuplicateScope } from './merging.repository.ts';
export type { CreateOptions, NewCustomer } from './create-path.ts';
export type { DuplicatePolicy, ImportItem } from './import-plan.ts';
export type { CustomerFilter, CustomerScope, MailRecipient, MailRecipientQuery } from './repository.ts';
export type { TransferItem } from './transfers.ts';
// The read model of a history record's customer (the histories module's reads).
export { customerHistoryReads } from './histories.repository.ts';
// What ingestion looks up of customers (the ingest module's CustomerLookups).
export { createCustomerIngestLookups } from './ingest.repository.ts';
export type { CustomerHistoryReads } from './mapper.ts';
// The score columns the scoring module writes, and the read model its hot leads start from.
export { type CustomerScoreColumns, createCustomerScoreColumns, risenCustomers } from './scores.repository.ts';
export type { RisenCustomer, RisenCustomersReadModel, RisenScope, ScoreColumns } from './mapper.ts';
// What erasure needs of customers, built by the composition root for it.
export { type CustomerErasure, createCustomerErasure } from './erasure.service.ts';

/** A customer as modules that attach records to it need it: its owner decides who else may see it. */
export interface VisibleCustomer {
  id: string;
  ownerId: number;
  name: string | null;
}

/** A customer as a playbook's filters see it: owner, group, and field values as text. */
export interface PlaybookCustomer extends VisibleCustomer {
  groupId: string | null;
  fields: Record<string, string>;
}

export interface CustomersDeps {
  access: AccessService;
  metadata: MetadataService;
  groups: GroupsService;
  members: MembersService;
  audit: AuditRecorder;
  /** Writes a new customer's `create` record and gives the behaviour count the lists and the detail show. */
  behaviour: BehaviourService;
  /** The project's region (the projects service's `region`): what its phone numbers mean (docs/customers.md). */
  regionOf: (appId: string) => Promise<string>;
  /** What the lists and the detail show of a customer's engagement score (the scoring service's `view`). */
  scores: CustomerScoreView;
}

/**
 * Customers (docs/customers.md), one service per kind of caller, all on one create path and one
 * validation engine:
 * - `api`: members' requests (create, edit, detail, lists and search, transfers, soft delete);
 * - `lists`: the list's filter built in one place (`customerListFilter`), its pages and total;
 * - `fields`: the project's custom fields (docs/metadata.md);
 * - `writePath`: customers written without a member's request (ingestion, the viewer's form, the site);
 * - `dataOps`: imports and exports (the dataops module);
 * - `merging`: what a merge needs inside its transaction (the merges module);
 * - `bulk`: bulk actions' steps, a batch in the caller's transaction, and "all matching" (the bulk module);
 * - `phoneKeys`: the job that keys customers stored before phone keys existed;
 * - `mailRecipients`: a campaign's recipients (live customers by id or group, of one owner or any).
 */
export function createCustomersService(ctx: AppContext, deps: CustomersDeps) {
  const path = createCreatePath(ctx, deps);
  const models = { behaviourTotal: deps.behaviour.customerTotal, scoreState: deps.scores.stateOf };
  const reads = customerReads(models);
  const writePath = createCustomerWritePath(ctx, { path });
  const lists = createCustomerLists(ctx, { ...deps, reads: customerListReads(models) });
  async function liveCustomers(appId: string, ids: string[], executor?: Kysely<Database>): Promise<Map<string, VisibleCustomer>> {
    const reader = executor === undefined ? ctx.database.reader : ctx.database.readerFor(executor);
    const out = new Map<string, VisibleCustomer>();
    for (const r of await repo.findMany(reader, appId, ids))
      if (r.status === 1) out.set(r.id, { id: r.id, ownerId: r.owner_id, name: r.name });
    return out;
  }
  return {
    api: createCustomerApi(ctx, { ...deps, path, writePath, reads, lists }),
    /** The list's filter, order and pages (`customerListFilter`: which customers a list, or an action on all it matches, covers). */
    lists,
    fields: createFieldOps(ctx.database.db, deps.metadata, deps.audit),
    writePath,
    dataOps: createCustomerDataOps(ctx, { ...deps, path }),
    merging: createCustomerMerging({ metadata: deps.metadata, path, database: ctx.database }),
    bulk: createCustomerBulk(ctx, { ...deps, lists }),
    /** The background job that keys the mobile numbers of customers stored before phone keys (the composition root defines it). */
    phoneKeys: phoneKeysJob(ctx, deps.regionOf),
    /**
     * The live customers among `ids` the actor may see, as the customer list shows them (a Sales
     * member: their own), for modules that attach records to customers (the tasks module's notes,
     * tasks and logged calls). `executor`: the caller's transaction, the database otherwise.
     */
    async visibleLive(actor: Actor, ids: string[], executor?: Kysely<Database>): Promise<Map<string, VisibleCustomer>> {
      const live = await liveCustomers(actor.app.id, ids, executor);
      for (const [id, c] of live) if (!actor.isManager && c.ownerId !== actor.userId) live.delete(id);
      return live;
    },
    /** The live customers of the project among `ids`, whoever may see them (a background job's look-up: the tasks module's due scan). */
    liveCustomers,
    /**
     * What a playbook's filters look at of the live customers among `ids` (docs/playbooks.md): owner,
     * group, name and field values (custom fields, and `company`, `email`, `title` among the attributes) as text.
     */
    async playbookFacts(appId: string, ids: string[], executor?: Kysely<Database>): Promise<Map<string, PlaybookCustomer>> {
      const reader = executor === undefined ? ctx.database.reader : ctx.database.readerFor(executor);
      const out = new Map<string, PlaybookCustomer>();
      for (const r of await repo.findMany(reader, appId, ids)) {
        if (r.status !== 1) continue;
        const fields: Record<string, string> = {};
        for (const [k, v] of Object.entries(parseExt(r.ext))) fields[k] = Array.isArray(v) ? v.join(',') : String(v);
        for (const k of ['company', 'email', 'title'] as const) if (r[k] !== null && r[k] !== undefined) fields[k] = String(r[k]);
        out.set(r.id, { id: r.id, ownerId: r.owner_id, groupId: r.group_id, name: r.name, fields });
      }
      return out;
    },
    /** `executor`: the caller's transaction (a bulk job's batch), the database otherwise. */
    mailRecipients(appId: string, query: MailRecipientQuery, executor?: Kysely<Database>): Promise<MailRecipient[]> {
      return repo.mailRecipients(executor ?? ctx.database.db, appId, query);
    },
    /** One custom field's value of each of these customers that has one (a sequence reads `time_zone`). `executor` as above. */
    fieldValueOf(appId: string, customerIds: string[], name: string, executor?: Kysely<Database>): Promise<Map<string, string>> {
      return fieldValueOf(executor ?? ctx.database.db, appId, customerIds, name);
    },
  };
}

/**
 * The customers' counts other modules show (built before the groups service, which shows each
 * group's live customers; the customers service is built after groups).
 */
export function createCustomerCounts(ctx: AppContext) {
  return {
    /** Live customers in each of these groups of the project; a group without any is left out (the groups service's LiveCustomerCounts). */
    liveByGroup(appId: string, groupIds: string[]): Promise<Map<string, number>> {
      return repo.liveCountsByGroup(ctx.database.db, appId, groupIds);
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
