import { sql } from 'kysely';
import { type PreparedReader, jsonRowsOf, preparedQuery } from '../../db/prepared.ts';

const customerById = preparedQuery('behaviourCustomer', ({ db }, id: string) =>
  db.selectFrom('customers').select(['id', 'app_id', 'owner_id', 'status']).where('id', '=', id),
);
/**
 * The customer's visibility fields and, in the same row, its overview sums per kind and key as one
 * JSON value (`sums`, read with jsonRowsOf): the all-time totals (a range of their primary key) or,
 * with `fromDay`, the rollups from that day on. One statement instead of two (issue 7).
 */
const overviewAll = preparedQuery('behaviourOverviewAll', ({ db, rowsAsJson }, customerId: string) =>
  db
    .selectFrom('customers as c')
    .select(['c.id', 'c.app_id', 'c.owner_id', 'c.status'])
    .select((eb) =>
      rowsAsJson(
        eb.selectFrom('behaviour_totals as t').select(['t.kind', 't.key', 't.count as num']).whereRef('t.customer_id', '=', 'c.id'),
        ['kind', 'key', 'num'],
      ).as('sums'),
    )
    .where('c.id', '=', customerId),
);
const overviewFrom = preparedQuery('behaviourOverviewFrom', ({ db, rowsAsJson }, customerId: string, fromDay: string) =>
  db
    .selectFrom('customers as c')
    .select(['c.id', 'c.app_id', 'c.owner_id', 'c.status'])
    .select((eb) =>
      rowsAsJson(
        eb
          .selectFrom('behaviour_rollups as r')
          .select(['r.kind', 'r.key', sql<number>`sum(r.count)`.as('num')])
          .whereRef('r.customer_id', '=', 'c.id')
          .where('r.day', '>=', fromDay)
          .groupBy(['r.kind', 'r.key']),
        ['kind', 'key', 'num'],
      ).as('sums'),
    )
    .where('c.id', '=', customerId),
);
// An open end of the time range is the widest range rather than another statement shape.
const NO_START = Number.MIN_SAFE_INTEGER;
const NO_END = Number.MAX_SAFE_INTEGER;
/**
 * One page of a customer's records by when desc, id desc (a range of (customer_id, when_at, id)),
 * and in the same statement the web_page_view records of the page's site visits (same customer,
 * through the (customer_id, web_access_log_id) index): `part` 0 and 1. One statement instead of two
 * (each costs ~100 µs of Node CPU on PostgreSQL). Rows come in no particular order: see list().
 */
const pageWithViews = preparedQuery(
  'behaviourPageWithViews',
  ({ db }, customerId: string, from: number, to: number, offset: number, limit: number, viewsOf: string) =>
    db
      .with('page', (w) =>
        w
          .selectFrom('behaviour_logs')
          .selectAll()
          .where('customer_id', '=', customerId)
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
);

const byWhenDesc = <T extends { when_at: number; id: string }>(a: T, b: T) =>
  b.when_at - a.when_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export const behaviourRepository = {
  findCustomer(r: PreparedReader, id: string) {
    return r.first(customerById, id);
  },

  /**
   * The customer (as findCustomer) with its overview sums per kind and key: the all-time totals,
   * or the rollups from `fromDay` on.
   */
  async overview(r: PreparedReader, customerId: string, fromDay: string | null) {
    const row = fromDay === null ? await r.first(overviewAll, customerId) : await r.first(overviewFrom, customerId, fromDay);
    if (row === undefined) return undefined;
    const { sums, ...customer } = row;
    return { customer, sums: jsonRowsOf(sums).map(([kind, key, num]) => ({ kind: String(kind), key: String(key), num: Number(num) })) };
  },

  /**
   * One page of a customer's behaviour by when desc, id desc, and the web_page_view records of its
   * site visits, oldest first (sorted here: an ORDER BY over the union would lead SQLite to walk the
   * customer's whole history by time instead of seeking the index).
   */
  async list(r: PreparedReader, customerId: string, from: number | null, to: number | null, offset: number, limit: number) {
    const rows = await r.all(pageWithViews, customerId, from ?? NO_START, to ?? NO_END, offset, limit, customerId);
    const page = rows.filter((x) => Number(x.part) === 0).sort(byWhenDesc);
    const pageViews = rows.filter((x) => Number(x.part) === 1).sort((a, b) => byWhenDesc(b, a));
    return { page, pageViews };
  },
};
