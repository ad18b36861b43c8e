import type { AppContext } from '../../context.ts';
import { badRequest, failure } from '../../http/errors.ts';
import { phoneKey } from '../../lib/phones.ts';
import type { Page } from '../../http/paging.ts';
import type { AccessService, Actor } from '../access/service.ts';
import type { BehaviourService } from '../behaviour/service.ts';
import type { MetadataService } from '../metadata/service.ts';
import {
  type ActivityFilter,
  type CustomerFilter,
  type CustomerListReads,
  type CustomerListRow,
  type CustomerScope,
  DEFAULT_SORT,
  FILTERED_TOTAL_CAP,
  LIST_SORT_KEYS,
  type ListSort,
  type ListSortKey,
} from './list.repository.ts';

/** The list's parameters as the API takes them (docs/customers.md, "Order, total and activity"). */
export interface ListParams {
  keyword?: string | undefined;
  /** A group id, '' for customers in no group; undefined for any group. */
  groupId?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
  sort?: string | undefined;
  order?: string | undefined;
  activity?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  period?: string | undefined;
}

/** Which customers a list (or an action on "all matching") covers: whose, which, in what order. */
export interface ResolvedList {
  scope: CustomerScope;
  filter: CustomerFilter;
  sort: ListSort;
  /** No filter at all: the plain list (prepared statements, page anchors, an exact total). */
  plain: boolean;
}

/** A page of the list and the number of customers that match (`capped`: at least that many). */
export interface ListPage {
  rows: CustomerListRow[];
  total: number;
  capped: boolean;
}

const HOUR = 3_600_000;
const MAX_PERIOD_DAYS = 366;

/** The order: `sort` (default updated) and `order` (default desc, asc for the name). */
export function parseSort(sort: string | undefined, order: string | undefined): ListSort {
  const key = (sort === undefined || sort === '' ? DEFAULT_SORT.key : sort) as ListSortKey;
  if (!LIST_SORT_KEYS.includes(key)) throw failure('sort_invalid', `Unknown sort '${sort}': one of ${LIST_SORT_KEYS.join(', ')}`);
  if (order !== undefined && order !== '' && order !== 'asc' && order !== 'desc') {
    throw failure('sort_invalid', `Unknown order '${order}': asc or desc`);
  }
  const dir = order === 'asc' || order === 'desc' ? order : key === 'name' ? 'asc' : 'desc';
  return { key, dir };
}

/** The activity period: `period` (e.g. 7d, 24h) back from now, or `since` and `until`; null for none given. */
export function parsePeriod(
  p: Pick<ListParams, 'since' | 'until' | 'period'>,
  now: number,
): { since: number | null; until: number | null } | null {
  const { period, since, until } = p;
  if (period !== undefined && period !== '') {
    if (since !== undefined || until !== undefined) throw failure('period_invalid', 'Give period, or since and until, not both');
    const m = /^(\d{1,4})([hd])$/.exec(period);
    const hours = m ? Number(m[1]) * (m[2] === 'd' ? 24 : 1) : 0;
    if (hours < 1 || hours > MAX_PERIOD_DAYS * 24) throw failure('period_invalid', `Invalid period '${period}': 1h to ${MAX_PERIOD_DAYS}d`);
    return { since: now - hours * HOUR, until: null };
  }
  if (since === undefined && until === undefined) return null;
  if (since !== undefined && until !== undefined && since >= until) throw failure('period_invalid', 'since must be before until');
  return { since: since ?? null, until: until ?? null };
}

/** The customer list: its filter built in one place (for the list and for actions on "all matching"), its pages and total. */
export function createCustomerLists(
  ctx: AppContext,
  deps: { access: AccessService; metadata: MetadataService; behaviour: BehaviourService; reads: CustomerListReads },
) {
  const { access, metadata, behaviour, reads } = deps;
  const db = ctx.database.db;

  /** The activity filter of the parameters, if any: kinds through the behaviour module's catalogue. */
  function activityFilter(params: ListParams): ActivityFilter | undefined {
    const period = parsePeriod(params, ctx.clock.now());
    const kind = params.activity === undefined || params.activity === '' ? (period === null ? undefined : 'any') : params.activity;
    if (kind === undefined) return undefined;
    const actions = kind === 'any' ? null : behaviour.customerActivity.actionsOf(kind);
    if (actions === undefined) throw failure('activity_invalid', `Unknown activity '${kind}'`);
    return { actions, since: period?.since ?? null, until: period?.until ?? null, reads: behaviour.customerActivity };
  }

  /**
   * Which customers a list covers, from the path's member (a platform user id, or 'all') and the
   * list's parameters: the caller's visibility (Sales: their own), the filters, the order. Every
   * parameter is checked here (a documented error for a bad one).
   */
  async function customerListFilter(actor: Actor, input: { ownerId: string; params: ListParams }): Promise<ResolvedList> {
    const appId = actor.app.id;
    let requested: number | undefined;
    if (input.ownerId !== 'all') {
      if (!/^\d{1,10}$/.test(input.ownerId)) throw badRequest("Invalid path parameter 'svc-user-id': a platform user id or 'all'");
      requested = Number(input.ownerId);
    }
    const scope: CustomerScope = { appId, ownerId: access.visibleOwner(actor, requested) };
    const p = input.params;
    const sort = parseSort(p.sort, p.order);
    const keyword = p.keyword?.trim() ?? '';
    // A mobile number is matched by its key (E.164), however it was written.
    const phoneText = p.phone?.trim() || undefined;
    const phone = phoneText === undefined ? undefined : (phoneKey(phoneText, actor.app.region) ?? phoneText);
    const email = p.email?.trim() || undefined;
    const activity = activityFilter(p);
    const searchFields = keyword === '' ? [] : await metadata.searchable(appId);
    const filter: CustomerFilter = { keyword, groupId: p.groupId, phone, email, searchFields, activity };
    const plain = keyword === '' && p.groupId === undefined && phone === undefined && email === undefined && activity === undefined;
    return { scope, filter, sort, plain };
  }

  return {
    customerListFilter,

    /** A page of the list in its order, and how many customers match (a filtered list's count stops past FILTERED_TOTAL_CAP). */
    async page(actor: Actor, input: { ownerId: string; params: ListParams; page: Page }): Promise<ListPage> {
      const { scope, filter, sort, plain } = await customerListFilter(actor, input);
      const { offset, limit } = input.page;
      if (plain) {
        const [rows, total] = await Promise.all([reads.page(ctx.database, scope, sort, offset, limit), reads.total(ctx.database, scope)]);
        return { rows, total, capped: false };
      }
      const [rows, counted] = await Promise.all([
        reads.filteredPage(db, scope, filter, sort, { offset, limit }),
        reads.filteredTotal(db, scope, filter),
      ]);
      return { rows, total: Math.min(counted, FILTERED_TOTAL_CAP), capped: counted > FILTERED_TOTAL_CAP };
    },
  };
}

export type CustomerLists = ReturnType<typeof createCustomerLists>;
