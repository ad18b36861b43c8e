import type { Static } from '@sinclair/typebox';
import type { ExpressionBuilder, Insertable, Kysely } from 'kysely';
import type { BehaviourLogsTable, Database } from '../../db/index.ts';
import type { AppContext } from '../../context.ts';
import { AppError, badRequest, failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import type { AccessService, Actor } from '../access/service.ts';
import type { CustomerVisibilityReadModel } from '../customers/mapper.ts';
import type { HistoriesService } from '../histories/service.ts';
import type { MergeReadModel } from '../merges/mapper.ts';
import { overviewKeys, taggedLinkOf } from './actions.ts';
import { BOOKKEEPING_ACTIONS, activityActions } from './activity-kinds.ts';
import { CALL_ACTIONS, toBehaviour, toOverview } from './mapper.ts';
import { type ActivityPeriod, type CustomerColumns, customerActivityReads } from './activity.repository.ts';
import { createBehaviourReads, createBehaviourWrites, customerBehaviourTotal } from './repository.ts';
import type { BehaviourRecord } from './schemas.ts';

// The action catalogue is part of this module's public surface: ingestion validates records against it.
export { ACTION_NAME_RE, actionSpec, checkContent, overviewKeys, taggedLinkOf } from './actions.ts';
export { BOOKKEEPING_ACTIONS } from './activity-kinds.ts';
export type { ActivityPeriod } from './activity.repository.ts';
// The write path of behaviour records and counters, built by the composition root for ingestion.
export { type BehaviourRecords, createBehaviourRecords } from './records.service.ts';
// This module's part of erasing customers, built by the composition root for erasure.
export { type BehaviourErasure, createBehaviourErasure } from './erasure.service.ts';

const customerNotFound = () => failure('customer_not_found');

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Where an overview window starts, as a local `yyyy-MM-dd HH:mm:ss` of the server's zone: the same
 * time 7 days ago (4), or 1 or 3 months ago (3, 2) on the same day of the month, clamped to the
 * month's length. Null for "all" (1).
 */
export function windowStart(type: number, now: string): string | null {
  if (type === 1) return null;
  const [y, m, d] = now.slice(0, 10).split('-').map(Number) as [number, number, number];
  let start: Date;
  if (type === 4) {
    start = new Date(Date.UTC(y, m - 1, d - 7));
  } else {
    const months = type === 2 ? 3 : 1;
    const monthStart = new Date(Date.UTC(y, m - 1 - months, 1));
    const lastDay = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 0)).getUTCDate();
    start = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth(), Math.min(d, lastDay)));
  }
  return `${start.getUTCFullYear()}-${pad(start.getUTCMonth() + 1)}-${pad(start.getUTCDate())}${now.slice(10)}`;
}

function contentOf(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * The read models the overview's and the list's statements are built with: the customer's visibility
 * (the customers module's) and the customers merged into a survivor (the merges module's). Given by
 * the composition root (both modules' services know this one).
 */
export interface BehaviourReadModels {
  customers: CustomerVisibilityReadModel;
  merges: MergeReadModel;
  /** The notes and tasks the team's records name (the tasks module's `createTeamRecordReads`). */
  team: TeamRecordReads;
}

type Joined = Static<typeof BehaviourRecord>;

/**
 * The notes and tasks of the project with these ids, as the API answers them (missing ones left
 * out): what the records of the team's notes and tasks (member_note, member_task) join in the list.
 */
export type TeamRecordReads = (
  appId: string,
  ids: { noteIds: string[]; taskIds: string[] },
) => Promise<{ notes: Map<string, NonNullable<Joined['note']>>; tasks: Map<string, NonNullable<Joined['task']>> }>;

/** The customer overview (from rollups) and the behaviour record list with its joins (docs/interface.md §11). */
export function createBehaviourService(
  ctx: AppContext,
  access: AccessService,
  histories: HistoriesService,
  readModels: BehaviourReadModels,
) {
  const reader = ctx.database.reader;
  const clock = ctx.clock;
  const writes = createBehaviourWrites(ctx.database.features);
  const repo = createBehaviourReads(readModels.customers, readModels.merges);

  /**
   * The customer if the caller may see it: a member of its project, and its owner unless Master or
   * Admin. Anything else (no customer included) is customer_not_found, so customer ids cannot be probed.
   */
  async function assertVisible<C extends { app_id: string; owner_id: number }>(
    customer: C | undefined,
    callerId: number,
    appId?: string,
  ): Promise<C> {
    if (!customer || (appId !== undefined && customer.app_id !== appId)) throw customerNotFound();
    try {
      const m = await access.membership(customer.app_id, callerId);
      if (!m.isManager && customer.owner_id !== callerId) throw customerNotFound();
    } catch (err) {
      if (err instanceof AppError && (err.kind === 'forbidden' || err.code === 'app_not_found')) throw customerNotFound();
      throw err;
    }
    return customer;
  }

  /** The notes and tasks a page's team records name: one read when the page has any, none otherwise. */
  async function teamRecords(appId: string, ids: (field: string, only?: (action: string) => boolean) => string[]) {
    const noteIds = ids('note_id', (a) => a === 'member_note');
    const taskIds = ids('task_id', (a) => a === 'member_task');
    if (noteIds.length === 0 && taskIds.length === 0) return { notes: new Map(), tasks: new Map() };
    return readModels.team(appId, { noteIds, taskIds });
  }

  return {
    /**
     * For the customers module: a customer's behaviour record count as a subquery correlated with
     * its row aliased `c` (newCount and whetherMerge come in the list's and the detail's one statement).
     */
    customerTotal: customerBehaviourTotal,

    /**
     * For the customers module's list filter (docs/customers.md): the actions of an activity kind
     * (undefined for a name that is none), and the read models that find customers with such
     * activity in a period (`customersWith`, `anyIn`: see repository.ts).
     */
    customerActivity: {
      actionsOf: activityActions,
      customersWith: <DB extends Database, TB extends keyof DB>(
        eb: ExpressionBuilder<DB, TB>,
        customer: CustomerColumns,
        actions: readonly string[],
        period: ActivityPeriod,
      ) => customerActivityReads.customersWith(eb, customer, actions, period),
      anyIn: <DB extends Database, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, customer: CustomerColumns, period: ActivityPeriod) =>
        customerActivityReads.anyIn(eb, customer, BOOKKEEPING_ACTIONS, period),
    },

    /**
     * For the customers module, inside the transaction that creates them: new customers' first
     * records (`create`), with a rollup for `day` and a total each.
     */
    writeFirstRecords(trx: Kysely<Database>, records: Insertable<BehaviourLogsTable>[], day: string): Promise<void> {
      return writes.insertFirstRecords(trx, records, day);
    },

    /**
     * The overview over a window of `when`: daily rollups from the window's first day on, less what
     * that day's records before the window's start added to them (read from the records).
     */
    async overview(customerId: string, callerId: number, timeRangeType: number | undefined) {
      const start = windowStart(timeRangeType ?? 1, clock.format(clock.now()));
      let window: { fromDay: string; dayStart: number; from: number } | null = null;
      if (start !== null) {
        const fromDay = start.slice(0, 10);
        // A local time a daylight-saving change skips does not parse: the window then starts with its day.
        const dayStart = clock.parse(`${fromDay} 00:00:00`) ?? clock.now();
        window = { fromDay, dayStart, from: clock.parse(start) ?? dayStart };
      }
      // The customer and its sums in one statement; the sums are shown only once it is visible.
      const found = await repo.overview(reader, customerId, window);
      const customer = await assertVisible(found?.customer, callerId);
      const sums = found?.sums ?? [];
      const before = found?.before ?? [];
      if (before.length === 0) return toOverview(sums);
      // What the first day's records before the window's start added to its rollups comes back out.
      const parsed = before.map((r) => ({ action: r.action, content: contentOf(r.content) }));
      const linkIds = [...new Set(parsed.map((r) => taggedLinkOf(r.action, r.content)).filter((id): id is string => id !== null))];
      const tags = linkIds.length === 0 ? new Map<string, string[]>() : await histories.linkTags(customer.app_id, linkIds);
      const counts = new Map(sums.map((s) => [`${s.kind}\u0000${s.key}`, s]));
      for (const r of parsed) {
        const link = taggedLinkOf(r.action, r.content);
        for (const [kind, key] of overviewKeys(r.action, r.content, link === null ? undefined : tags.get(link))) {
          const sum = counts.get(`${kind}\u0000${key}`);
          if (sum) sum.num -= 1;
        }
      }
      return toOverview(sums.filter((s) => s.num > 0));
    },

    /**
     * A page of a customer's behaviour records. `actor`: the caller's membership in the project of
     * the path, resolved by the auth hook (outsiders got 403 forbidden there).
     */
    async list(
      actor: Actor,
      q: { customerId: string; range: { start_time?: string | undefined; end_time?: string | undefined }; page: Page },
    ): Promise<Static<typeof BehaviourRecord>[]> {
      const { customerId, range: input, page: p } = q;
      const appId = actor.app.id;
      const from = input.start_time === undefined || input.start_time === '' ? null : clock.parse(input.start_time);
      if (from === null && input.start_time) throw badRequest("Invalid parameter 'start_time': expected yyyy-MM-dd HH:mm:ss");
      const to = input.end_time === undefined || input.end_time === '' ? null : clock.parse(input.end_time);
      if (to === null && input.end_time) throw badRequest("Invalid parameter 'end_time': expected yyyy-MM-dd HH:mm:ss");
      if (from !== null && to !== null && from > to) throw badRequest("Invalid parameter 'start_time': after end_time");
      // The customer and its page in one statement; the page is shown only once the customer is visible.
      // end_time is inclusive to the second: a record at 10:00:00.500 is within end_time 10:00:00.
      const through = to === null ? null : to + 999;
      const found = await repo.list(reader, appId, customerId, from, through, p.offset, p.limit);
      if (found === undefined) throw customerNotFound();
      if (found.customer.app_id !== appId || (!actor.isManager && found.customer.owner_id !== actor.userId)) throw customerNotFound();
      const { page: rows, pageViews } = found;

      // Collect what the page joins, then fetch each kind once.
      const parsed = rows.map((r) => ({ row: r, content: contentOf(r.content) }));
      const ids = (field: string, only?: (action: string) => boolean) => [
        ...new Set(
          parsed
            .filter((x) => !only || only(x.row.action))
            .map((x) => str(x.content?.[field]))
            .filter((v): v is string => v !== null),
        ),
      ];
      const [{ viewLogs, links, clues, calls }, team] = await Promise.all([
        histories.referencedRecords(actor, {
          linkIds: ids('linkId'),
          viewLogIds: ids('linkViewLogId'),
          clueIds: ids('clueId'),
          callIds: ids('record_id', (a) => CALL_ACTIONS.has(a)),
        }),
        teamRecords(appId, ids),
      ]);

      return parsed.map(({ row, content }) => {
        const out: Static<typeof BehaviourRecord> = toBehaviour(row, clock);
        const viewLogId = str(content?.linkViewLogId);
        if (viewLogId !== null) out.linkViewLog = viewLogs.get(viewLogId)?.viewLog ?? null;
        const linkId = str(content?.linkId) ?? (viewLogId !== null ? (viewLogs.get(viewLogId)?.linkId ?? null) : null);
        if (linkId !== null) out.linkDetail = links.get(linkId) ?? null;
        const clueId = str(content?.clueId);
        if (clueId !== null) out.clue = clues.get(clueId) ?? null;
        if (CALL_ACTIONS.has(row.action)) {
          const call = calls.get(str(content?.record_id) ?? '');
          if (call && call.audio_status === 1) {
            Object.assign(out, {
              handleState: '1',
              audioUrl: call.audio_url,
              callTime: clock.format(call.call_time),
              duration: call.duration,
              endTime: clock.format(call.end_time),
            });
          } else {
            Object.assign(out, {
              handleState: '0',
              progressText: !call
                ? 'call record not received yet'
                : call.audio_status === 2
                  ? 'audio processing failed'
                  : 'audio processing',
              progressVal: 0,
            });
          }
        }
        if (row.action === 'member_note') out.note = team.notes.get(str(content?.note_id) ?? '') ?? null;
        if (row.action === 'member_task') out.task = team.tasks.get(str(content?.task_id) ?? '') ?? null;
        if (row.action === 'access_site') {
          const visit = str(content?.web_access_log_id);
          out.webAccessLog = content;
          out.webPageViewLogs = pageViews
            .filter((pv) => visit !== null && pv.web_access_log_id === visit)
            .map((pv) => ({ ...contentOf(pv.content), id: pv.id, viewTime: clock.format(pv.when_at) }));
        }
        return out;
      });
    },
  };
}

export type BehaviourService = ReturnType<typeof createBehaviourService>;
