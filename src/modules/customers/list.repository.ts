/**
 * The customer list's SQL (docs/customers.md, "Order, total and activity"): its orders, pages read
 * through the seam's page anchors, filtered pages, and its total. Each order has its index
 * (migrations 002 and 031): project (and owner), status, the order's key, id; the id breaks ties in
 * the order's direction, so every page seeks and no two pages overlap. Search and the detail, in
 * repository.ts, share the page's extras (`withListExtras`).
 */
import {
  type Anchor,
  type CustomersTable,
  type Database,
  type DatabaseHandle,
  type DialectFeatures,
  type QueryScope,
  anchoredPage,
  containsInsensitive,
  preparedQuery,
} from '../../db/index.ts';
import {
  type AliasableExpression,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { CustomerRow, ScoreStateOf } from './mapper.ts';

export type { ScoreStateOf } from './mapper.ts';

type Db = Kysely<Database>;

/** The list's orders: by last change (the default), creation, name, last activity, or engagement score. */
export type ListSortKey = 'updated' | 'created' | 'name' | 'last_activity' | 'score';
export type ListDirection = 'asc' | 'desc';
export interface ListSort {
  key: ListSortKey;
  dir: ListDirection;
}
export const LIST_SORT_KEYS: readonly ListSortKey[] = ['updated', 'created', 'name', 'last_activity', 'score'];
export const DEFAULT_SORT: ListSort = { key: 'updated', dir: 'desc' };

/** Whose customers a query covers: a project, optionally one owner. */
export interface CustomerScope {
  appId: string;
  ownerId: number | null;
}

/** The behaviour module's read models of the activity filter (its service's `customerActivity`). */
export interface ActivityReads {
  customersWith(
    eb: ExpressionBuilder<Database, 'customers'>,
    customer: { appId: string; id: string },
    actions: readonly string[],
    period: { since: number | null; until: number | null },
  ): Expression<SqlBool>;
  anyIn(
    eb: ExpressionBuilder<Database, 'customers'>,
    customer: { appId: string; id: string },
    period: { since: number | null; until: number | null },
  ): Expression<SqlBool>;
}

/**
 * Only customers with activity in a period: of these actions (`actions`), or of any action but the
 * bookkeeping ones (`actions: null`). `since` inclusive, `until` exclusive (epoch ms), null for open.
 */
export interface ActivityFilter {
  actions: readonly string[] | null;
  since: number | null;
  until: number | null;
  reads: ActivityReads;
}

/** What a filtered list keeps: see customerListFilter (list.service.ts). */
export interface CustomerFilter {
  keyword?: string | undefined;
  groupId?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
  /** Custom fields the keyword also looks in (those marked searchable). */
  searchFields?: string[] | undefined;
  activity?: ActivityFilter | undefined;
}

/** An order's key as SQL: a column, or the name's expression of its index (migration 031). */
function sortKey(key: ListSortKey): RawBuilder<string | number> {
  switch (key) {
    case 'updated':
      return sql.ref('updated_at');
    case 'created':
      return sql.ref('created_at');
    case 'last_activity':
      return sql.ref('last_activity_at');
    case 'score':
      return sql.ref('score_key');
    case 'name':
      return sql`lower(coalesce(${sql.ref('name')}, ''))`;
  }
}

/** A list row: the customer and its order key (`list_key`, what a page anchor names). */
export type KeyedRow = CustomerRow & { list_key: string | number };

/** Live customers in the order, the id breaking ties in the same direction; one page of them, each with its key. */
export function livePage(q: SelectQueryBuilder<Database, 'customers', CustomerRow>, sort: ListSort, offset: number, limit: number) {
  const key = sortKey(sort.key);
  return q
    .where('status', '=', 1)
    .select(key.as('list_key'))
    .orderBy(key, sort.dir)
    .orderBy('id', sort.dir)
    .offset(offset)
    .limit(limit) as unknown as SelectQueryBuilder<Database, 'customers', KeyedRow>;
}

/** Rows after a known one in the order (a page anchor): a row-value comparison the order's index seeks to. */
function after(q: SelectQueryBuilder<Database, 'customers', CustomerRow>, sort: ListSort, key: unknown, id: string) {
  const op = sql.raw(sort.dir === 'desc' ? '<' : '>');
  return q.where(sql<SqlBool>`(${sortKey(sort.key)}, ${sql.ref('id')}) ${op} (${key}, ${id})`);
}

/**
 * A customer's behaviour record count as a subquery correlated with the row aliased `c`: the
 * behaviour module's read model (its service's `customerTotal`), handed to `customerReads`.
 */
export type BehaviourTotalOf = (eb: ExpressionBuilder<Database & { c: CustomersTable }, 'c'>) => AliasableExpression<number>;

/** The other modules' read models a list, search or detail row's extras are selected with. */
export interface ListReadModels {
  behaviourTotal: BehaviourTotalOf;
  scoreState: ScoreStateOf;
}

/**
 * Another live customer of the same owner with the same value in `column`: one seek of the value's
 * index. The owner is compared as `+owner_id` (a unary plus, the same value on both databases) so that
 * SQLite cannot seek an owner's index instead, which it rates as good when most customers are one
 * owner's and then walks all of them for each row of the page.
 */
export const twinBy = (eb: ExpressionBuilder<Database & { c: CustomersTable }, 'c'>, column: 'phone_key' | 'email_lower') =>
  eb.exists(
    eb
      .selectFrom('customers as d')
      .select('d.id')
      .whereRef('d.app_id', '=', 'c.app_id')
      .whereRef(`d.${column}`, '=', `c.${column}`)
      .where(sql<number>`+${sql.ref('d.owner_id')}`, '=', sql.ref<number>('c.owner_id'))
      .whereRef('d.id', '!=', 'c.id')
      .where('d.status', '=', 1),
  );

/**
 * A page with what a list item shows besides the row, in the same statement: the behaviour total
 * (newCount), whether a live customer of the same owner shares the phone or e-mail (whetherMerge)
 * and the score's state, each an index seek per row of the page only (the page is a subquery,
 * so rows skipped by the offset are never looked at). One statement instead of five.
 */
export function withListExtras(
  db: Kysely<Database>,
  page: SelectQueryBuilder<Database, 'customers', KeyedRow>,
  models: ListReadModels,
  sort: ListSort,
) {
  return db
    .selectFrom(page.as('c'))
    .selectAll('c')
    .select((eb) => {
      const e = eb as unknown as ExpressionBuilder<Database & { c: CustomersTable }, 'c'>;
      return [
        models.behaviourTotal(e).as('behaviour_total'),
        twinBy(e, 'phone_key').as('phone_twin'),
        twinBy(e, 'email_lower').as('email_twin'),
        models.scoreState(e).as('score_state'),
      ];
    })
    .orderBy('c.list_key', sort.dir)
    .orderBy('c.id', sort.dir);
}

const projectCustomers = (db: Db, appId: string) => db.selectFrom('customers').selectAll().where('app_id', '=', appId);

/**
 * One owner's customers. The score's order has one index for every scope, the owner last in it
 * (migration 035): the owner's condition is kept out of SQLite's index choice (as a project's by key,
 * DialectFeatures.projectIs), which would otherwise pick an owner index of another order and sort.
 */
function ownedBy(q: SelectQueryBuilder<Database, 'customers', CustomerRow>, sort: ListSort, scope: QueryScope, ownerId: number) {
  return sort.key === 'score' ? q.where(scope.projectIs('owner_id', ownerId)) : q.where('owner_id', '=', ownerId);
}

/** The prepared statements of one order: a page from a position or after an anchor, of the project or of one owner. */
function orderQueries(models: ListReadModels, sort: ListSort) {
  const name = `customerList_${sort.key}_${sort.dir}`;
  const page = (q: SelectQueryBuilder<Database, 'customers', CustomerRow>, db: Db, offset: number, limit: number) =>
    withListExtras(db, livePage(q, sort, offset, limit), models, sort);
  return {
    all: preparedQuery(`${name}_all`, ({ db }, appId: string, offset: number, limit: number) =>
      page(projectCustomers(db, appId), db, offset, limit),
    ),
    owned: preparedQuery(`${name}_owned`, (scope, appId: string, ownerId: number, offset: number, limit: number) =>
      page(ownedBy(projectCustomers(scope.db, appId), sort, scope, ownerId), scope.db, offset, limit),
    ),
    allAfter: preparedQuery(`${name}_allAfter`, ({ db }, appId: string, key: unknown, id: string, offset: number, limit: number) =>
      page(after(projectCustomers(db, appId), sort, key, id), db, offset, limit),
    ),
    ownedAfter: preparedQuery(
      `${name}_ownedAfter`,
      (scope, appId: string, ownerId: number, key: unknown, id: string, offset: number, limit: number) =>
        page(after(ownedBy(projectCustomers(scope.db, appId), sort, scope, ownerId), sort, key, id), scope.db, offset, limit),
    ),
  };
}

/** A list or search row: the customer, its order key and its extras (withListExtras). */
export type CustomerListRow = KeyedRow & {
  behaviour_total: number | null;
  phone_twin: unknown;
  email_twin: unknown;
  score_state: unknown;
};

/** What a list item adds to the row, from the extras of its statement. */
export function listExtras(r: CustomerListRow): { whetherMerge: number; newCount: number } {
  // Empty phone or e-mail never makes a twin (as in duplicates()).
  const merge = (r.phone_key && Number(r.phone_twin)) || (r.email_lower && Number(r.email_twin)) ? 1 : 0;
  return { whetherMerge: merge, newCount: Math.max(0, Number(r.behaviour_total ?? 0) - Number(r.seen_behaviour_count)) };
}

/** Customers in scope that match the list's filters (see customerListFilter; an export's pages in data.repository.ts). */
export function filtered(db: Db, scope: CustomerScope, filter: CustomerFilter, byKey?: DialectFeatures) {
  let q = db.selectFrom('customers').selectAll();
  q = byKey ? q.where(byKey.projectIs('app_id', scope.appId)) : q.where('app_id', '=', scope.appId);
  if (scope.ownerId !== null) q = q.where('owner_id', '=', scope.ownerId);
  const { groupId, keyword, phone, email, activity } = filter;
  if (groupId !== undefined) q = groupId === '' ? q.where('group_id', 'is', null) : q.where('group_id', '=', groupId);
  // `phone` is the number's key (E.164): found however it was written.
  if (phone !== undefined) q = q.where('phone_key', '=', phone);
  if (email !== undefined) q = q.where('email_lower', '=', email.toLowerCase());
  if (activity !== undefined) q = withActivity(q, activity);
  if (keyword !== undefined && keyword !== '') {
    // Custom fields marked searchable are searched too (their values in customer_field_values).
    const fields = filter.searchFields ?? [];
    q = q.where((eb) =>
      eb.or([
        containsInsensitive(eb, eb.ref('name'), keyword),
        containsInsensitive(eb, eb.ref('company'), keyword),
        containsInsensitive(eb, eb.ref('phone'), keyword),
        containsInsensitive(eb, eb.ref('email_lower'), keyword),
        ...(fields.length === 0
          ? []
          : [
              eb.exists(
                eb
                  .selectFrom('customer_field_values as v')
                  .select('v.customer_id')
                  .where('v.app_id', '=', scope.appId)
                  .whereRef('v.customer_id', '=', 'customers.id')
                  .where('v.name', 'in', fields)
                  .where((e) => containsInsensitive(e, e.ref('v.value_lower'), keyword)),
              ),
            ]),
      ]),
    );
  }
  return q;
}

/**
 * The activity filter's condition, on the list's index walk: kinds of action, a record of such an
 * action in the period (a seek per customer); any activity, the customer's last activity at or after
 * `since`, and, with an `until`, a record of the period (a seek per customer).
 */
function withActivity(q: SelectQueryBuilder<Database, 'customers', CustomerRow>, a: ActivityFilter) {
  const period = { since: a.since, until: a.until };
  const { actions } = a;
  const customer = { appId: 'customers.app_id', id: 'customers.id' };
  if (actions !== null) return q.where((eb) => a.reads.customersWith(eb, customer, actions, period));
  let out = q.where('last_activity_at', '>', 0);
  if (a.since !== null) out = out.where('last_activity_at', '>=', a.since);
  return a.until === null ? out : out.where((eb) => a.reads.anyIn(eb, customer, period));
}

/** Lists (project × owner × order) whose page anchors are kept, and whose totals are. */
const MAX_LISTS = 1000;
/** A filtered list's total counts this many matches at most (docs/customers.md). */
export const FILTERED_TOTAL_CAP = 10_000;

const liveCount = preparedQuery('customerListTotal', ({ db }, appId: string) =>
  db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('app_id', '=', appId)
    .where('status', '=', 1),
);
const liveOwnedCount = preparedQuery('customerListTotalOwned', ({ db }, appId: string, ownerId: number) =>
  db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('app_id', '=', appId)
    .where('owner_id', '=', ownerId)
    .where('status', '=', 1),
);

/** The list's reads: pages in each order, filtered pages, and totals. Built once by the service with the behaviour module's read model. */
export function customerListReads(models: ListReadModels) {
  const orders = new Map<string, ReturnType<typeof orderQueries>>();
  for (const key of LIST_SORT_KEYS)
    for (const dir of ['asc', 'desc'] as const) orders.set(`${key}:${dir}`, orderQueries(models, { key, dir }));
  const queriesOf = (sort: ListSort) => orders.get(`${sort.key}:${sort.dir}`) as ReturnType<typeof orderQueries>;
  return {
    /**
     * A page of live customers in the order; the id breaks ties so pages never overlap. Deep pages
     * seek from where earlier pages of the same list and order ended (src/db/page-anchors.ts).
     */
    page(database: DatabaseHandle, scope: CustomerScope, sort: ListSort, offset: number, limit: number): Promise<CustomerListRow[]> {
      const reader = database.reader;
      const q = queriesOf(sort);
      const anchors = database.cache<string, Anchor<{ key: unknown; id: string }>[]>('customer-list-anchors', 'customers', MAX_LISTS);
      return anchoredPage(anchors, `${scope.appId}:${scope.ownerId ?? '*'}:${sort.key}:${sort.dir}`, offset, limit, {
        from: (from, count) =>
          (scope.ownerId === null
            ? reader.all(q.all, scope.appId, from, count)
            : reader.all(q.owned, scope.appId, scope.ownerId, from, count)) as Promise<CustomerListRow[]>,
        after: (k, skip, count) =>
          (scope.ownerId === null
            ? reader.all(q.allAfter, scope.appId, k.key, k.id, skip, count)
            : reader.all(q.ownedAfter, scope.appId, scope.ownerId, k.key, k.id, skip, count)) as Promise<CustomerListRow[]>,
        keyOf: (row) => ({ key: row.list_key, id: row.id }),
      });
    },

    /**
     * A page of live customers in scope that match a filter (customerListFilter), in the order, with
     * the list's extras. Read as it is asked (no prepared statement, no page anchors: a filter
     * narrows the rows, and its pages are read while someone looks at them).
     */
    filteredPage(db: Db, scope: CustomerScope, filter: CustomerFilter, sort: ListSort, page: { offset: number; limit: number }) {
      return withListExtras(db, livePage(filtered(db, scope, filter), sort, page.offset, page.limit), models, sort).execute() as Promise<
        CustomerListRow[]
      >;
    },

    /**
     * The number of live customers in scope: a count of the list index's range, kept per list until
     * the next write of a customer (the anchors' topic).
     */
    async total(database: DatabaseHandle, scope: CustomerScope): Promise<number> {
      const totals = database.cache<string, number>('customer-list-totals', 'customers', MAX_LISTS);
      const snapshot = totals.snapshot();
      const list = `${scope.appId}:${scope.ownerId ?? '*'}`;
      const known = snapshot.get(list);
      if (known !== undefined) return known;
      const row =
        scope.ownerId === null
          ? await database.reader.first(liveCount, scope.appId)
          : await database.reader.first(liveOwnedCount, scope.appId, scope.ownerId);
      const n = Number(row?.n ?? 0);
      snapshot.set(list, n);
      return n;
    },

    /** The number of live customers in scope that match a filter, counting at most FILTERED_TOTAL_CAP + 1. */
    async filteredTotal(db: Db, scope: CustomerScope, filter: CustomerFilter): Promise<number> {
      const matches = filtered(db, scope, filter)
        .clearSelect()
        .select(sql.lit(1).as('one'))
        .where('status', '=', 1)
        .limit(FILTERED_TOTAL_CAP + 1);
      const row = await db
        .selectFrom(matches.as('m'))
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type CustomerListReads = ReturnType<typeof customerListReads>;
