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
const page = preparedQuery('behaviourPage', ({ db }, customerId: string, from: number, to: number, offset: number, limit: number) =>
  db
    .selectFrom('behaviour_logs')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('when_at', '>=', from)
    .where('when_at', '<=', to)
    .orderBy('when_at', 'desc')
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit),
);
const pageViewsOf = preparedQuery('behaviourPageViews', ({ db, inList }, customerId: string, visitIds: string[]) =>
  db
    .selectFrom('behaviour_logs')
    .select(['id', 'web_access_log_id', 'when_at', 'content'])
    .where('customer_id', '=', customerId)
    .where(inList('web_access_log_id', visitIds, 'text'))
    .where('action', '=', 'web_page_view'),
);

export const behaviourRepository = {
  findCustomer(r: PreparedReader, id: string) {
    return r.first(customerById, id);
  },

  /** Rollup sums per kind and key from `fromDay` on: a range of the rollup primary key. */
  sumRollups(r: PreparedReader, customerId: string, fromDay: string | null) {
    // The whole history: the all-time totals, a range of their primary key.
    return fromDay === null ? r.all(totals, customerId) : r.all(rollupsFrom, customerId, fromDay);
  },

  /** One page of a customer's behaviour by when desc, id desc: a range of (customer_id, when_at, id). */
  list(r: PreparedReader, customerId: string, from: number | null, to: number | null, offset: number, limit: number) {
    return r.all(page, customerId, from ?? NO_START, to ?? NO_END, offset, limit);
  },

  /** web_page_view records of these site visits (same customer), oldest first. */
  async pageViews(r: PreparedReader, customerId: string, webAccessLogIds: string[]) {
    if (webAccessLogIds.length === 0) return [];
    const rows = await r.all(pageViewsOf, customerId, webAccessLogIds);
    // Sorted here: an ORDER BY would lead SQLite to walk the customer's whole history by time
    // instead of seeking the (customer_id, web_access_log_id) index.
    return rows.sort((a, b) => a.when_at - b.when_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  },
};
