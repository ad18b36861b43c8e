import type { CustomersTable, Database } from '../../db/index.ts';
import type { Kysely, Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type EventMessage, RECORD_BODY, writeEvents } from '../../events/outbox.ts';
import { badRequest, failure, forbidden } from '../../http/errors.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import type { AccessService } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { BehaviourRecords } from '../behaviour/service.ts';
import { type CustomerMerging, type CustomerResponse, type CustomerRow, customerRecord, toCustomer } from '../customers/service.ts';
import type { HistoryRecords } from '../histories/service.ts';
import type { LinkMergeMoves } from '../links/service.ts';
import type { MembersService } from '../members/service.ts';
import type { TaskMergeMoves } from '../tasks/service.ts';
import type { AlertMergeMoves } from '../alerts/service.ts';
import type { SequenceMergeMoves } from '../sequences/service.ts';
import type { ScoreKeeper } from '../scoring/service.ts';
import { createDuplicates } from './duplicates.service.ts';
import { type CustomerMergeRow, createMergesRepository } from './repository.ts';

// The read model other modules' repositories follow a survivor's pending merges with (behaviour's reads).
export { mergeReadModel } from './repository.ts';
export type { MergeReadModel } from './mapper.ts';

// This module's part of erasing customers, built by the composition root for erasure.
export { type MergeErasure, createMergeErasure } from './erasure.service.ts';

/** Customers merged into one in one call, at most. */
const MAX_MERGED = 100;
/** Rows one background transaction moves. */
const MOVE_BATCH = 1000;
/**
 * How long after a merge its alias is kept "pending" even once nothing names the merged customer
 * any more: an ingestion batch checked before the merge committed may still write records naming
 * it; the job moves those too until then (ADR 0027).
 */
export const MERGE_SETTLE_MS = 60_000;
/** How often the background job looks for merges to move. */
const JOB_EVERY_MS = 2_000;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Merged customers' status (docs/customers.md): gone from lists, search and whetherMerge; the detail names the survivor. */
export const MERGED_STATUS = 2;

/**
 * The source attributes (how and where the customer came from): the survivor keeps the earliest
 * customer's, filling each blank from the next earliest.
 */
const SOURCE_COLUMNS = [
  'create_way',
  'platform',
  'from_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'buyed_keyword',
  'search_keyword',
  'promoter_id',
  'from_content_title',
  'from_content_link',
  'from_province',
  'from_city',
  'source',
  'get_way',
  'lead_source',
] as const satisfies readonly (keyof CustomersTable)[];
/** Every other attribute: the main customer's, blanks filled from the others, earliest first. */
const OTHER_COLUMNS = [
  'name',
  'headportrait_url',
  'company',
  'title',
  'phone',
  'email',
  'email_lower',
  'fixed_phone',
  'industry',
  'province',
  'city',
  'county',
  'address',
  'deal_user_id',
  'sex',
  'age_state',
  'intentionality',
  'grade',
] as const satisfies readonly (keyof CustomersTable)[];
/** Values that count as "not filled": the metadata defaults of sex and age state are blanks too. */
function blank(column: string, v: unknown): boolean {
  if (v === null || v === undefined || v === '') return true;
  if (column === 'sex' && v === 2) return true;
  if (column === 'age_state' && v === -1) return true;
  return false;
}

export interface MergeInput {
  merge_user_ids?: string | undefined;
  main_customer_id?: string | undefined;
  merge_target_id?: string | number | undefined;
  /** Attribute values for the survivor (as on edit). */
  overrides: Record<string, unknown>;
}

export type { DuplicateKind, DuplicateSet } from './duplicates.service.ts';

/** Customer merge, the duplicates finder and the background move of merged history (docs/customers.md, ADR 0027). */
export function createMergesService(
  ctx: AppContext,
  deps: {
    access: AccessService;
    members: MembersService;
    customers: CustomerMerging;
    audit: AuditRecorder;
    defineJob: DefineJob;
    /** Behaviour records and counters, written and moved by their owner. */
    behaviour: BehaviourRecords;
    /** Calls, moved by their owner. */
    histories: HistoryRecords;
    /** Visitors, views and links, moved by their owner. */
    links: LinkMergeMoves;
    /** Notes and tasks, moved by their owner. */
    tasks: TaskMergeMoves;
    /** Alerts (notifications, signals, readings), moved by their owner. */
    alerts: AlertMergeMoves;
    /** Enrolments in sequences, moved (or exited) by their owner. */
    sequences: SequenceMergeMoves;
    /** Engagement scores, moved by their owner. */
    scores: Pick<ScoreKeeper, 'move'>;
  },
) {
  const { access, members, customers, audit, behaviour, histories, links, tasks, alerts, sequences, scores } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const clock = ctx.clock;
  const repo = createMergesRepository(ctx.database.features);

  /**
   * The history whose rows name a customer in `customer_id`, moved from a merged customer to its
   * survivor by the background job in batches, each through its owner, in this order: behaviour
   * records, calls, views (link_view_logs), links, notes, tasks, alerts, enrolments in sequences. A table that names customers gets a move here (and
   * a step in erasure). The counters (behaviour_totals, behaviour_rollups) move apart, whole, in one
   * transaction.
   */
  type Move = (trx: Kysely<Database>, m: CustomerMergeRow, batch: number) => Promise<number>;
  const moveOf = (m: CustomerMergeRow) => ({ appId: m.app_id, mergedId: m.merged_id, survivorId: m.survivor_id });
  const MOVES: Move[] = [
    (trx, m, batch) => behaviour.moveRecords(trx, moveOf(m), batch),
    (trx, m, batch) => histories.moveCalls(trx, moveOf(m), batch),
    (trx, m, batch) => links.moveViews(trx, moveOf(m), batch),
    (trx, m, batch) => links.moveLinks(trx, moveOf(m), batch),
    (trx, m, batch) => tasks.moveNotes(trx, moveOf(m), batch),
    (trx, m, batch) => tasks.moveTasks(trx, moveOf(m), batch),
    (trx, m, batch) => alerts.moveAlerts(trx, moveOf(m), batch),
    (trx, m, batch) => sequences.moveEnrollments(trx, moveOf(m), batch),
  ];

  const parseIds = (raw: string | undefined): string[] =>
    (raw ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');

  /** The survivor as composed from the main customer and the merged ones (oldest first). */
  function compose(main: CustomerRow, all: CustomerRow[]): Updateable<CustomersTable> {
    const byAge = [...all].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
    const out: Record<string, unknown> = {};
    for (const col of SOURCE_COLUMNS) {
      const from = byAge.find((r) => !blank(col, r[col]));
      out[col] = from ? from[col] : main[col];
    }
    for (const col of OTHER_COLUMNS) {
      if (!blank(col, main[col])) continue;
      const from = byAge.find((r) => !blank(col, r[col]));
      if (from) out[col] = from[col];
      // A mobile number comes with its key (E.164), which matches are made by.
      if (from && col === 'phone') out.phone_key = from.phone_key;
    }
    // Extension attributes: key by key, the main customer's first, then the others oldest first.
    const ext: Record<string, unknown> = {};
    for (const r of [...byAge]
      .reverse()
      .filter((r) => r.id !== main.id)
      .concat([main])) {
      if (!r.ext) continue;
      try {
        for (const [k, v] of Object.entries(JSON.parse(r.ext) as Record<string, unknown>)) if (!blank(k, v)) ext[k] = v;
      } catch {
        // An unreadable ext is left out, as the mapper would.
      }
    }
    if (Object.keys(ext).length > 0) out.ext = JSON.stringify(ext);
    out.created_at = byAge[0]?.created_at ?? main.created_at;
    return out as Updateable<CustomersTable>;
  }

  // ---- The background job ---------------------------------------------------------------------

  /** Moves one merge's history as far as it goes; true once it is finished. */
  async function moveOne(m: CustomerMergeRow, settleMs: number): Promise<boolean> {
    for (const move of MOVES) {
      // Each batch commits on its own: a crash loses at most the batch under way, and the next
      // run starts from what still names the merged customer.
      // Between batches the event loop serves requests (SQLite's driver answers synchronously: without
      // this, the whole move would run as one long task).
      while ((await db.transaction().execute((trx) => move(trx, m, MOVE_BATCH))) === MOVE_BATCH) await yieldToRequests();
    }
    return db.transaction().execute(async (trx) => {
      await repo.lockProject(trx, m.app_id);
      const now = clock.now();
      const current = await repo.alias(trx, m);
      // Re-pointed by a later merge (its survivor merged in turn): the next pass moves to the new one.
      if (current === undefined || current.survivor_id !== m.survivor_id || current.moved_at !== null) return false;
      await behaviour.moveCounters(trx, moveOf(m));
      // A score earned by records that named the merged customer after the merge (a batch checked before it).
      await scores.move(trx, moveOf(m));
      if (now - m.merged_at < settleMs) return false;
      if (await repo.finish(trx, m, now)) await customers.settleSurvivor(trx, m.app_id, m.survivor_id);
      return true;
    });
  }

  /** Every pending merge moved once; returns how many were finished. */
  async function runPending(settleMs: number): Promise<number> {
    let finished = 0;
    for (const m of await repo.pending(db, 500)) {
      if (await moveOne(m, settleMs)) finished += 1;
    }
    return finished;
  }

  // Every few seconds on a server, and right after each merge.
  const job = deps.defineJob({
    name: 'merge-history',
    idleMs: JOB_EVERY_MS,
    tick: async () => ((await runPending(MERGE_SETTLE_MS)) > 0 ? 'worked' : 'idle'),
  });

  return {
    /**
     * Merges customers into the main one, all-or-nothing, in one short transaction: the merged
     * customers get status 2 and `mergedCustomerId`, the survivor their blanks and source fields,
     * the new owner, a `customer_merged` record, a Customer `merge` event and an audit entry. Their
     * history is moved afterwards by the background job; reads take it in the meantime.
     */
    async merge(appId: string, callerId: number, pathUserId: string, input: MergeInput): Promise<CustomerResponse> {
      const m = await access.membership(appId, callerId);
      if (!/^\d{1,10}$/.test(pathUserId)) throw badRequest("Invalid path parameter 'svc-user-id': must be a platform user id");
      const acting = Number(pathUserId);
      if (acting !== callerId) {
        if (!m.isManager) throw forbidden('Sales members act only as themselves');
        if (!(await members.isActiveMember(db, appId, acting)))
          throw failure('svc_user_id_invalid', 'svc-user-id is not a member of this project');
      }
      const mainId = (input.main_customer_id ?? '').trim();
      if (mainId === '') throw badRequest("Missing required parameter 'main_customer_id'");
      if (input.merge_user_ids === undefined) throw badRequest("Missing required parameter 'merge_user_ids'");
      // Clients of the original platform list the main customer among those merged: it is ignored.
      const mergedIds = parseIds(input.merge_user_ids).filter((id) => id !== mainId);
      if (mergedIds.length === 0 || mergedIds.length > MAX_MERGED || new Set(mergedIds).size !== mergedIds.length) {
        throw failure('merge_user_ids_invalid');
      }
      let target: number | null = null;
      const rawTarget = input.merge_target_id === undefined ? '' : String(input.merge_target_id).trim();
      if (rawTarget !== '') {
        if (!/^\d{1,10}$/.test(rawTarget)) throw failure('merge_target_id_invalid');
        target = Number(rawTarget);
        // As on create, edit and transfers: a Sales member may not give customers to someone else.
        if (!m.isManager && target !== callerId)
          throw forbidden('Only the project Master or an Admin may assign a customer to another member');
      }

      const result = await db.transaction().execute(async (trx) => {
        // Merges of one project take turns: two that share a customer cannot both see it live.
        await repo.lockProject(trx, appId);
        const rows = new Map((await customers.mergeRows(trx, appId, [mainId, ...mergedIds])).map((r) => [r.id, r]));
        for (const id of [mainId, ...mergedIds]) {
          const row = rows.get(id);
          if (!row || (!m.isManager && row.owner_id !== callerId)) throw failure('customer_not_found', `customer ${id} not found`);
          if (row.status === MERGED_STATUS)
            throw failure('customer_already_merged', `customer ${id} has already been merged into ${row.merged_customer_id ?? ''}`);
          if (row.status !== 1) throw failure('customer_not_found', `customer ${id} not found`);
        }
        const main = rows.get(mainId) as CustomerRow;
        const merged = mergedIds.map((id) => rows.get(id) as CustomerRow);
        const owner = target ?? main.owner_id;
        if (owner !== main.owner_id && !(await members.isActiveMember(trx, appId, owner))) throw failure('merge_target_id_invalid');
        const now = clock.now();
        const oldBodies = merged.map((r) => toCustomer(r, clock));
        const previous = toCustomer(main, clock);
        // The merged customers' scores are the survivor's at once; before any customer row is written (the score locks come first).
        for (const id of mergedIds) await scores.move(trx, { appId, mergedId: id, survivorId: mainId });

        // The merged customers leave the live set first, so their values are no longer "taken".
        await customers.markMerged(trx, { appId, mergedIds, survivorId: mainId, ownerId: owner, now });
        // Customers merged earlier into the merged ones, and their aliases, point at the new survivor:
        // every merged customer names a live one, and one alias hop always reaches it.
        await customers.repointMerged(trx, { appId, ids: repo.mergedInto(appId, mergedIds), survivorId: mainId, now });
        await repo.repointAliases(trx, appId, mergedIds, mainId);
        await repo.insertAliases(trx, appId, mergedIds, mainId, now);
        // Visitors (cookies) tied to merged customers: few, moved at once, so the next visit lands on the survivor.
        await links.moveVisitors(trx, { appId, mergedIds, survivorId: mainId }, now);

        const patch: Updateable<CustomersTable> = {
          ...compose(main, [main, ...merged]),
          merge_pending: 1,
          updated_at: now,
          // The merged customers' records become the survivor's: so does their latest activity.
          last_activity_at: Math.max(...[main, ...merged].map((r) => Number(r.last_activity_at))),
        };
        if (owner !== main.owner_id) {
          Object.assign(patch, {
            owner_id: owner,
            group_id: null,
            allocation_user_id: String(owner),
            is_new: 1,
            detail_viewed_at: null,
            seen_behaviour_count: 0,
          });
        }
        let survivor = await customers.updateSurvivor(trx, appId, mainId, patch);
        if (!survivor) throw failure('customer_not_found');
        if (Object.keys(input.overrides).length > 0) {
          const values = await customers.validateMergeOverrides(trx, m, { current: survivor, input: input.overrides, actingUserId: owner });
          if (Object.keys(values).length > 0) survivor = (await customers.updateSurvivor(trx, appId, mainId, values)) ?? survivor;
        }
        // Its custom values as composed (and overridden): what uniqueness and search read.
        await customers.syncFieldValues(trx, appId, survivor);
        const whetherMerge = await customers.whetherMergeIn(trx, survivor);
        const body = toCustomer(survivor, clock, whetherMerge);
        const record = customerRecord(appId, survivor, 'customer_merged', body, now);
        // The merge's own behaviour record, with its overview counters.
        await behaviour.insert(trx, [record]);
        const day = clock.format(now).slice(0, 10);
        await behaviour.addCounts(trx, [
          { app_id: record.app_id, customer_id: record.customer_id, day, kind: 'action', key: record.action, count: 1 },
        ]);
        const events: EventMessage[] = [
          {
            event_type: 'merge',
            domainType: 'Customer',
            domainId: mainId,
            body: { ...body, mergedCustomerIds: mergedIds, before: previous, mergedCustomers: oldBodies },
          },
          { event_type: 'create', domainType: 'BehaviourLog', domainId: record.id, body: RECORD_BODY },
        ];
        await writeEvents(trx, appId, events, now);
        await audit(trx, {
          appId,
          actorId: callerId,
          action: 'customer.merge',
          targetType: 'customer',
          targetId: mainId,
          detail: { merged: mergedIds, from: String(main.owner_id), to: String(owner) },
        });
        return body;
      });
      // A server runs the job; elsewhere (the CLI, tests) runPending() moves the history.
      job.poke();
      return result;
    },

    duplicates: createDuplicates({ access, customers, clock }),

    /**
     * One pass of the background job: moves the history of every pending merge (a merge stays
     * pending for `settleMs` after it was made). Returns how many merges were finished.
     */
    runPending(settleMs = MERGE_SETTLE_MS): Promise<number> {
      return runPending(settleMs);
    },
  };
}

export type MergesService = ReturnType<typeof createMergesService>;
