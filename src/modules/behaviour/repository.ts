import { sql } from 'kysely';
import { type PreparedReader, preparedQuery } from '../../db/prepared.ts';

const customerById = preparedQuery('behaviourCustomer', ({ db }, id: string) =>
  db.selectFrom('customers').select(['id', 'app_id', 'owner_id', 'status']).where('id', '=', id),
);
const totals = preparedQuery('behaviourTotals', ({ db }, customerId: string) =>
  db.selectFrom('behaviour_totals').select(['kind', 'key', 'count as num']).where('customer_id', '=', customerId),
);
const rollupsFrom = preparedQuery('behaviourRollupsFrom', ({ db }, customerId: string, fromDay: string) =>
  db
    .selectFrom('behaviour_rollups')
    .select(['kind', 'key', sql<number>`sum(count)`.as('num')])
    .where('customer_id', '=', customerId)
    .where('day', '>=', fromDay)
    .groupBy(['kind', 'key']),
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

  /** Rollup sums per kind and key from `fromDay` on: a range of the rollup primary key. */
  sumRollups(r: PreparedReader, customerId: string, fromDay: string | null) {
    // The whole history: the all-time totals, a range of their primary key.
    return fromDay === null ? r.all(totals, customerId) : r.all(rollupsFrom, customerId, fromDay);
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
