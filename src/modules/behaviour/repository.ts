/**
 * The behaviour module's SQL of the overview and the record list (service.ts), and what the customers
 * module builds with or writes through it (the record count read model, new customers' first
 * records). The record write path of ingestion and merges is records.repository.ts. The overview's
 * and the list's statements start from the customers module's read model (the customer's visibility,
 * in the same statement) and follow a survivor's pending merges through the merges module's.
 */
import {
  type BehaviourLogsTable,
  type CustomersTable,
  type Database,
  type DialectFeatures,
  type PreparedReader,
  bulkOps,
  jsonRowsOf,
  jsonRowsReader,
  preparedQuery,
} from '../../db/index.ts';
import { type ExpressionBuilder, type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { CustomerVisibilityReadModel } from '../customers/mapper.ts';
import type { MergeReadModel } from '../merges/mapper.ts';

// An open end of the time range is the widest range rather than another statement shape.
const NO_START = Number.MIN_SAFE_INTEGER;
const NO_END = Number.MAX_SAFE_INTEGER;
/** Every column of behaviour_logs and the part (0 page, 1 page view), as a page carries its rows as JSON. */
const pageRows = jsonRowsReader<Selectable<BehaviourLogsTable> & { part: number }>()([
  'id',
  'app_id',
  'customer_id',
  'svc_user_id',
  'deal_user_id',
  'customer_name',
  'action',
  'params',
  'remote_duration',
  'description',
  'when_at',
  'content',
  'client_name',
  'client_version',
  'os',
  'os_version',
  'net',
  'ip',
  'location',
  'province',
  'city',
  'user_type',
  'created_at',
  'web_access_log_id',
  'part',
]);

const groupTotals = preparedQuery('behaviourGroupTotals', ({ db, inList }, appId: string, ids: string[]) =>
  db
    .selectFrom('behaviour_totals')
    .select(['kind', 'key', sql<number>`sum(count)`.as('num')])
    .where('app_id', '=', appId)
    .where(inList('customer_id', ids, 'text'))
    .groupBy(['kind', 'key']),
);
const groupRollups = preparedQuery('behaviourGroupRollups', ({ db, inList }, appId: string, ids: string[], fromDay: string) =>
  db
    .selectFrom('behaviour_rollups')
    .select(['kind', 'key', sql<number>`sum(count)`.as('num')])
    .where('app_id', '=', appId)
    .where(inList('customer_id', ids, 'text'))
    .where('day', '>=', fromDay)
    .groupBy(['kind', 'key']),
);
const groupBefore = preparedQuery('behaviourGroupBefore', ({ db, inList }, appId: string, ids: string[], dayStart: number, from: number) =>
  db
    .selectFrom('behaviour_logs')
    .select(['action', 'content'])
    .where('app_id', '=', appId)
    .where(inList('customer_id', ids, 'text'))
    .where('when_at', '>=', dayStart)
    .where('when_at', '<', from),
);
const groupPage = preparedQuery(
  'behaviourGroupPage',
  ({ db, inList }, appId: string, ids: string[], from: number, to: number, offset: number, limit: number) =>
    db
      .selectFrom('behaviour_logs')
      .selectAll()
      .where('app_id', '=', appId)
      .where(inList('customer_id', ids, 'text'))
      .where('when_at', '>=', from)
      .where('when_at', '<=', to)
      .orderBy('when_at', 'desc')
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit),
);
const groupViews = preparedQuery('behaviourGroupViews', ({ db, inList }, appId: string, ids: string[], visits: string[]) =>
  db
    .selectFrom('behaviour_logs')
    .selectAll()
    .where('app_id', '=', appId)
    .where(inList('customer_id', ids, 'text'))
    .where('action', '=', 'web_page_view')
    .where(inList('web_access_log_id', visits, 'text')),
);

const byWhenDesc = <T extends { when_at: number; id: string }>(a: T, b: T) =>
  b.when_at - a.when_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The statements that read one customer with its records, started from the customers module's read
 * model, and the customers merged into a survivor, through the merges module's (one statement each).
 */
function readQueries(customers: CustomerVisibilityReadModel, merges: MergeReadModel) {
  /**
   * The customer's visibility fields and, in the same row, its overview sums per kind and key as one
   * JSON value (`sums`, read with jsonRowsOf): the all-time totals (a range of their primary key) or,
   * with `fromDay`, the rollups from that day on. One statement instead of two (ADR 0011). The
   * overview's path names the customer only: its project is the row's.
   */
  const overviewAll = preparedQuery('behaviourOverviewAll', ({ db, rowsAsJson }, customerId: string) =>
    customers
      .byIdAnyProject(db, customerId)
      .select((eb) =>
        rowsAsJson(
          eb
            .selectFrom('behaviour_totals as t')
            .select(['t.kind', 't.key', 't.count as num'])
            .whereRef('t.app_id', '=', customers.appId)
            .whereRef('t.customer_id', '=', customers.id),
          ['kind', 'key', 'num'],
        ).as('sums'),
      ),
  );
  /**
   * With `fromDay`: the rollups from that day on, and (`before`) the action and content of that day's
   * records before the window's start (`dayStart` ≤ when < `from`), whose part of the rollups is taken
   * back out. One statement still.
   */
  const overviewFrom = preparedQuery(
    'behaviourOverviewFrom',
    ({ db, rowsAsJson }, customerId: string, fromDay: string, dayStart: number, from: number) =>
      customers.byIdAnyProject(db, customerId).select((eb) => [
        rowsAsJson(
          eb
            .selectFrom('behaviour_rollups as r')
            .select(['r.kind', 'r.key', sql<number>`sum(r.count)`.as('num')])
            .whereRef('r.app_id', '=', customers.appId)
            .whereRef('r.customer_id', '=', customers.id)
            .where('r.day', '>=', fromDay)
            .groupBy(['r.kind', 'r.key']),
          ['kind', 'key', 'num'],
        ).as('sums'),
        rowsAsJson(
          eb
            .selectFrom('behaviour_logs as b')
            .select(['b.action', 'b.content'])
            .whereRef('b.customer_id', '=', customers.id)
            .whereRef('b.app_id', '=', customers.appId)
            .where('b.when_at', '>=', dayStart)
            .where('b.when_at', '<', from),
          ['action', 'content'],
        ).as('before'),
      ]),
  );
  /**
   * The customer's visibility fields and, in the same row, one page of its records by when desc, id
   * desc (a range of (app_id, customer_id, when_at, id)) with the web_page_view records of the page's site
   * visits (same customer, through the (customer_id, web_access_log_id) index): `part` 0 and 1, as one
   * JSON value (`rows`). One statement instead of three (each costs ~100 µs of Node CPU on
   * PostgreSQL). Rows come in no particular order: see list().
   */
  const pageWithViews = preparedQuery(
    'behaviourPageWithViews',
    (
      { db, rowsAsJson, projectIs },
      appId: string,
      customerId: string,
      pageApp: string,
      pageOf: string,
      from: number,
      to: number,
      offset: number,
      limit: number,
      viewsApp: string,
      viewsOf: string,
    ) =>
      customers.byId(db, appId, customerId).select(
        rowsAsJson(
          db
            .with('page', (w) =>
              w
                .selectFrom('behaviour_logs')
                .selectAll()
                .where('app_id', '=', pageApp)
                .where('customer_id', '=', pageOf)
                .where('when_at', '>=', from)
                .where('when_at', '<=', to)
                .orderBy('when_at', 'desc')
                .orderBy('id', 'desc')
                .offset(offset)
                .limit(limit),
            )
            .selectFrom('page')
            .selectAll('page')
            .select(sql<number>`0`.as('part'))
            .unionAll((eb) =>
              eb
                .selectFrom('behaviour_logs as v')
                .selectAll('v')
                .select(sql<number>`1`.as('part'))
                // Kept out of SQLite's index choice: (customer_id, web_access_log_id) is the seek, not
                // every record of the customer through (app_id, customer_id, …).
                .where(projectIs('v.app_id', viewsApp))
                .where('v.customer_id', '=', viewsOf)
                .where('v.action', '=', 'web_page_view')
                .where('v.web_access_log_id', 'in', (inner) =>
                  inner
                    .selectFrom('page')
                    .select('page.web_access_log_id')
                    .where('page.action', '=', 'access_site')
                    .where('page.web_access_log_id', 'is not', null),
                ),
            ),
          pageRows.columns,
        ).as('rows'),
      ),
  );

  /**
   * Reads of a survivor whose merges still have history to move (customers.merge_pending): the
   * customers merged into it whose history may still name them, then the same sums and pages over
   * all of them (ADR 0027). Only while the background job moves; afterwards the one-customer
   * statements above answer again.
   */
  const pendingMerged = preparedQuery('behaviourPendingMerged', ({ db }, appId: string, survivorId: string) =>
    merges.pendingMergedInto(db, appId, survivorId),
  );
  return { overviewAll, overviewFrom, pageWithViews, pendingMerged };
}

/**
 * The overview's and the record list's reads (the service's), built once per service over the
 * customers and merges modules' read models.
 */
export function createBehaviourReads(customers: CustomerVisibilityReadModel, merges: MergeReadModel) {
  const { overviewAll, overviewFrom, pageWithViews, pendingMerged } = readQueries(customers, merges);
  async function mergeGroup(r: PreparedReader, appId: string, survivorId: string): Promise<string[]> {
    return [survivorId, ...(await r.all(pendingMerged, appId, survivorId)).map((x) => x.merged_id)];
  }

  return {
    /**
     * The customer's visibility fields and its overview sums: all-time (no window), or from the
     * window's first day with that day's records before the window's start (`before`).
     */
    async overview(r: PreparedReader, customerId: string, window: { fromDay: string; dayStart: number; from: number } | null) {
      const sumsOf = (v: unknown) => jsonRowsOf(v).map(([kind, key, num]) => ({ kind: String(kind), key: String(key), num: Number(num) }));
      const numbers = (rows: { kind: string; key: string; num: number }[]) =>
        rows.map((x) => ({ kind: String(x.kind), key: String(x.key), num: Number(x.num) }));
      if (window === null) {
        const row = await r.first(overviewAll, customerId);
        if (row === undefined) return undefined;
        const { sums, merge_pending, ...customer } = row;
        if (Number(merge_pending) > 0) {
          const ids = await mergeGroup(r, customer.app_id, customer.id);
          return { customer, sums: numbers(await r.all(groupTotals, customer.app_id, ids)), before: [] };
        }
        return { customer, sums: sumsOf(sums), before: [] };
      }
      const row = await r.first(overviewFrom, customerId, window.fromDay, window.dayStart, window.from);
      if (row === undefined) return undefined;
      const { sums, before, merge_pending, ...customer } = row;
      if (Number(merge_pending) > 0) {
        const ids = await mergeGroup(r, customer.app_id, customer.id);
        const [groupSums, groupBeforeRows] = await Promise.all([
          r.all(groupRollups, customer.app_id, ids, window.fromDay),
          r.all(groupBefore, customer.app_id, ids, window.dayStart, window.from),
        ]);
        return {
          customer,
          sums: numbers(groupSums),
          before: groupBeforeRows.map((x) => ({ action: String(x.action), content: x.content === null ? null : String(x.content) })),
        };
      }
      return {
        customer,
        sums: sumsOf(sums),
        before: jsonRowsOf(before).map(([action, content]) => ({
          action: String(action),
          content: content === null ? null : String(content),
        })),
      };
    },

    /**
     * The customer's visibility fields with one page of its behaviour by when desc, id desc, and the
     * web_page_view records of the page's site visits, oldest first (sorted here: an ORDER BY over
     * the union would lead SQLite to walk the customer's whole history by time instead of seeking the
     * index).
     */
    async list(
      r: PreparedReader,
      appId: string,
      customerId: string,
      from: number | null,
      to: number | null,
      offset: number,
      limit: number,
    ) {
      const found = await r.first(
        pageWithViews,
        appId,
        customerId,
        appId,
        customerId,
        from ?? NO_START,
        to ?? NO_END,
        offset,
        limit,
        appId,
        customerId,
      );
      if (found === undefined) return undefined;
      const customer = { id: found.id, app_id: found.app_id, owner_id: found.owner_id, status: found.status };
      if (Number(found.merge_pending) > 0) {
        const ids = await mergeGroup(r, appId, customerId);
        const page = await r.all(groupPage, appId, ids, from ?? NO_START, to ?? NO_END, offset, limit);
        const visits = [
          ...new Set(page.filter((x) => x.action === 'access_site' && x.web_access_log_id).map((x) => x.web_access_log_id as string)),
        ];
        const pageViews = visits.length === 0 ? [] : (await r.all(groupViews, appId, ids, visits)).sort((a, b) => byWhenDesc(b, a));
        return { customer, page, pageViews };
      }
      const rows = pageRows.read(found.rows);
      const page = rows.filter((x) => Number(x.part) === 0).sort(byWhenDesc);
      const pageViews = rows.filter((x) => Number(x.part) === 1).sort((a, b) => byWhenDesc(b, a));
      return { customer, page, pageViews };
    },
  };
}

/**
 * The read model the customers module builds its list, detail and "seen" statements with: a
 * customer's behaviour record count (the sum of its action totals; each record adds one to one
 * action), as a subquery correlated with the customer row aliased `c`. An index seek per customer.
 */
export function customerBehaviourTotal(eb: ExpressionBuilder<Database & { c: CustomersTable }, 'c'>) {
  return eb
    .selectFrom('behaviour_totals as t')
    .select((e) => e.fn.coalesce(e.fn.sum<number>('t.count'), e.lit(0)).as('n'))
    .whereRef('t.app_id', '=', 'c.app_id')
    .whereRef('t.customer_id', '=', 'c.id')
    .where('t.kind', '=', 'action')
    .$asScalar();
}

/** Bulk writes of behaviour records (one statement per table and chunk; see db/bulk.ts). */
export function createBehaviourWrites(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /**
     * New customers' first records (their `create`): the records, and a rollup and a total of one
     * each. A new customer has no rollup or total yet, so plain inserts.
     */
    async insertFirstRecords(trx: Kysely<Database>, records: Insertable<BehaviourLogsTable>[], day: string): Promise<void> {
      await bulk.insert(trx, 'behaviour_logs', records);
      await bulk.insert(
        trx,
        'behaviour_rollups',
        records.map((r) => ({ app_id: r.app_id, customer_id: r.customer_id as string, day, kind: 'action', key: r.action, count: 1 })),
      );
      await bulk.insert(
        trx,
        'behaviour_totals',
        records.map((r) => ({ app_id: r.app_id, customer_id: r.customer_id as string, kind: 'action', key: r.action, count: 1 })),
      );
    },
  };
}
