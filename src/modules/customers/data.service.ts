import type { Kysely, Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { CustomersTable, Database } from '../../db/index.ts';
import { type EventMessage, writeEvents } from '../../events/outbox.ts';
import { AppError, forbidden } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import type { MembersService } from '../members/service.ts';
import type { MetadataRow, MetadataService } from '../metadata/service.ts';
import { ATTRIBUTES, ATTRIBUTE_BY_NAME } from './attributes.ts';
import type { CreatePath, ItemFailure, ListOptions } from './create-path.ts';
import {
  type DuplicateKey,
  type DuplicatePolicy,
  type FreshItem,
  type ImportItem,
  type ImportUpdate,
  blank,
  combinedInput,
  duplicateKeys,
  importInput,
  keyValue,
  matchKey,
  planImport,
} from './import-plan.ts';
import { type CustomerResponse, type CustomerRow, toCustomer } from './mapper.ts';
import { IMPORT_CREATE_WAY, actingMember, customerEvent } from './records.ts';
import { customerDataRepository as data } from './data.repository.ts';
import { type CustomerFilter, type CustomerScope, customersRepository as repo } from './repository.ts';
import { validateCustomer } from './validation.ts';

export interface ImportOptions {
  /** The acting member: owner of rows that name none. */
  ownerId: number;
  /** Master/Admin (or the CLI): rows may name another owner. */
  mayAssignOthers: boolean;
  /**
   * The one owner whose customers a row may match (a Sales member's import: the customers they can
   * read); null: every customer of the project (Master/Admin, the CLI).
   */
  matchOwnerId: number | null;
  /** The group of rows that name none. */
  groupId?: string | undefined;
  policy: DuplicatePolicy;
  /** Validate and count, write nothing. */
  dryRun: boolean;
  now: number;
}

/** What a batch of an import did; `problems` are the rows that failed, with the reason. */
export interface ImportOutcome {
  created: number;
  updated: number;
  skipped: number;
  problems: { row: number; code: string; reason: string }[];
}

/** One batch of an import being run: its transaction, project, options, the project's form and the outcome so far. */
interface ImportRun {
  trx: Kysely<Database>;
  appId: string;
  opts: ImportOptions;
  meta: MetadataRow[];
  /** Attributes an update never sets: read-only ones are set when a customer is made. */
  readonlyNames: Set<string>;
  outcome: ImportOutcome;
}

function problem(row: number, err: AppError): { row: number; code: string; reason: string } {
  return { row, code: err.code, reason: err.message };
}

/** The input of an update by an import row: its non-blank values that an update may set (read-only ones never; `merge` blanks only). */
function updateInput(run: ImportRun, item: ImportItem, current: CustomerRow): Record<string, unknown> {
  const { opts } = run;
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(importInput(item.input, opts.groupId))) {
    if (blank(value)) continue;
    const spec = ATTRIBUTE_BY_NAME.get(name) ?? ATTRIBUTES.find((a) => a.param === name);
    // Read-only attributes are set when a customer is made, never by an update.
    if (spec && run.readonlyNames.has(spec.name)) continue;
    if (name === 'group_id' && opts.groupId !== undefined && value === opts.groupId && current.group_id !== null) continue;
    if (opts.policy === 'merge' && spec && !blank(current[spec.column])) continue;
    input[name] = value;
  }
  return input;
}

/**
 * Customer imports and exports, for the dataops module (docs/data-operations.md): an import's batch
 * through the create path, the attributes its mapping offers, an export's pages and scope, and for
 * whom the caller acts.
 */
export function createCustomerDataOps(
  ctx: AppContext,
  deps: { access: AccessService; metadata: MetadataService; members: MembersService; path: CreatePath },
) {
  const { access, metadata, members, path } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const clock = ctx.clock;

  /** Stored live customers the rows' keys name, that the importer may read (the oldest for each value). */
  async function storedMatches(run: ImportRun, items: ImportItem[], keys: DuplicateKey[]): Promise<Map<string, CustomerRow>> {
    const stored = new Map<string, CustomerRow>();
    for (const key of keys) {
      const values = [...new Set(items.map((it) => keyValue(it.input, key)).filter((v): v is string => v !== null))];
      for (const row of await data.liveByValues(run.trx, run.appId, key.column, values)) {
        // A customer the importer cannot read is no match: the row is a new customer, as create makes it.
        if (run.opts.matchOwnerId !== null && row.owner_id !== run.opts.matchOwnerId) continue;
        const k = matchKey(key, row[key.column]);
        const earlier = stored.get(k);
        if (!earlier || row.created_at < earlier.created_at) stored.set(k, row);
      }
    }
    return stored;
  }

  /** The batch's new customers, through the create path; an invalid one is reported with the rows folded into it. */
  async function createFresh(run: ImportRun, fresh: FreshItem[]): Promise<void> {
    const { trx, appId, opts, outcome } = run;
    const items = fresh.map((entry) => ({ input: importInput(combinedInput(entry, opts.policy), opts.groupId), ownerId: opts.ownerId }));
    const listOpts: ListOptions = {
      now: opts.now,
      validate: 'create',
      createWay: IMPORT_CREATE_WAY,
      mayAssignOthers: opts.mayAssignOthers,
    };
    const failures: ItemFailure[] = [];
    const batch = await path.batchFor(trx, appId, items, listOpts);
    const built = await path.validatedRows(batch, items, failures);
    if ('failed' in built) throw built.failed.error; // not reached: failures are collected
    const failedAt = new Set(failures.map((f) => f.position));
    fresh.forEach((entry, i) => {
      if (failedAt.has(i)) return;
      outcome.created += 1;
      outcome.updated += entry.extra.length;
    });
    // An import's custom values are kept in `ext` only, as it has always written them.
    if (!opts.dryRun && built.rows.length > 0) await path.store(trx, appId, { rows: built.rows, fieldValues: [] }, opts.now);
    for (const f of failures) {
      const entry = fresh[f.position] as FreshItem;
      for (const it of [entry, ...entry.extra]) outcome.problems.push(problem(it.row, f.error));
    }
  }

  /** Rows that update stored customers, each validated as an edit by the importer; their Customer events. */
  async function applyUpdates(run: ImportRun, updates: ImportUpdate[]): Promise<EventMessage[]> {
    const { trx, appId, opts, outcome } = run;
    const env = await path.envFor(trx, appId);
    const events: EventMessage[] = [];
    const touched = new Map<string, CustomerRow>();
    for (const { item, current: first } of updates) {
      const current = touched.get(first.id) ?? first;
      try {
        const v = await validateCustomer(updateInput(run, item, current), {
          mode: 'edit',
          metadata: run.meta,
          actingUserId: opts.ownerId,
          mayAssignOthers: opts.mayAssignOthers,
          current,
          ...env,
        });
        outcome.updated += 1;
        if (opts.dryRun) continue;
        const patch: Updateable<CustomersTable> = { ...v.values, updated_at: opts.now };
        if (v.ownerChanged) {
          const reset = { allocation_user_id: String(v.ownerId), is_new: 1, detail_viewed_at: null, seen_behaviour_count: 0 };
          Object.assign(patch, { owner_id: v.ownerId, ...reset });
        }
        const updated = await repo.update(trx, appId, current.id, patch);
        if (updated) {
          touched.set(updated.id, updated);
          events.push(customerEvent(clock, 'update', updated));
        }
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        outcome.problems.push(problem(item.row, err));
      }
    }
    return events;
  }

  return {
    /**
     * One batch of an import inside the caller's transaction (docs/data-operations.md): each row
     * goes through the create endpoint's validation and write path (createWay 7), an invalid row is
     * reported and the others go on. A row whose duplicate key (the project's unique attributes;
     * without any, the mobile number and then the e-mail) names a live customer the importer may
     * read, or an earlier row of the batch, is skipped, or updates that customer (`update`: the
     * row's non-blank values win; `merge`: only the customer's blank attributes are filled).
     */
    async importInTransaction(trx: Kysely<Database>, appId: string, items: ImportItem[], opts: ImportOptions): Promise<ImportOutcome> {
      const outcome: ImportOutcome = { created: 0, updated: 0, skipped: 0, problems: [] };
      if (items.length === 0) return outcome;
      const meta = await metadata.rows(trx, appId);
      const readonlyNames = new Set(meta.filter((m) => m.readonly === 1).map((m) => m.name));
      const run: ImportRun = { trx, appId, opts, meta, readonlyNames, outcome };
      const keys = duplicateKeys(run.meta, await path.regionOf(appId));
      const plan = planImport(items, keys, await storedMatches(run, items, keys), opts.policy);
      outcome.skipped += plan.skipped;
      if (plan.fresh.length > 0) await createFresh(run, plan.fresh);
      const events = await applyUpdates(run, plan.updates);
      if (events.length > 0) await writeEvents(trx, appId, events, opts.now);
      outcome.problems.sort((a, b) => a.row - b.row);
      return outcome;
    },

    /**
     * The project's attributes for an import's column mapping and template: name, title, type,
     * read-only, in display order (the project's metadata).
     */
    async importAttributes(
      appId: string,
    ): Promise<{ name: string; param: string | undefined; title: string; readonly: boolean; required: boolean }[]> {
      return (await metadata.rows(db, appId)).map((m) => ({
        name: m.name,
        param: ATTRIBUTE_BY_NAME.get(m.name)?.param,
        title: m.title,
        readonly: m.readonly === 1,
        required: m.required === 1,
      }));
    },

    /**
     * The customers an export writes, a page at a time in creation order from after `afterId`
     * (constant memory however many): what the caller may see (a Sales member: their own), with
     * the list's filters. Rows as the Customer object.
     */
    async exportPage(
      scope: CustomerScope,
      filter: CustomerFilter,
      afterId: string | null,
      limit: number,
    ): Promise<{ customers: CustomerResponse[]; last: string | null }> {
      const rows = await data.exportPage(db, ctx.database.features, scope, filter, afterId, limit);
      return {
        customers: rows.map((r) => toCustomer(r, clock)),
        last: rows.length === limit ? (rows[rows.length - 1] as CustomerRow).id : null,
      };
    },

    /** Live customers in scope among these ids (at most a few hundred), in id order: a bulk export's batch. */
    async exportByIds(scope: CustomerScope, ids: string[]): Promise<CustomerResponse[]> {
      if (ids.length === 0) return [];
      return (await data.inScopeByIds(db, scope, ids)).map((r) => toCustomer(r, clock));
    },

    /**
     * The path's acting member for work done for it (an import): the caller, or for Master/Admin
     * another active member; and whether the caller may assign customers to others.
     */
    async actingFor(appId: string, callerId: number, pathUserId: string): Promise<{ acting: number; isManager: boolean }> {
      const actor = await access.membership(appId, callerId);
      return { acting: await actingMember(members, db, actor, pathUserId), isManager: actor.isManager };
    },

    /**
     * Whose customers a caller may export: a Sales member their own, unless the project switched Sales
     * export off; Master and Admin everyone's, or one member's (`requestedOwner`, as the list's owner filter).
     */
    async exportScope(appId: string, callerId: number, requestedOwner?: number): Promise<CustomerScope> {
      const m = await access.membership(appId, callerId);
      if (!m.isManager && m.app.sales_export === 0) throw forbidden('This project does not let Sales members export customers');
      return { appId, ownerId: access.visibleOwner(m, requestedOwner) };
    },
  };
}

export type CustomerDataOps = ReturnType<typeof createCustomerDataOps>;
