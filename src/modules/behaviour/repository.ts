import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/index.ts';

type Db = Kysely<Database>;

export const behaviourRepository = {
  findCustomer(db: Db, id: string) {
    return db.selectFrom('customers').select(['id', 'app_id', 'owner_id', 'status']).where('id', '=', id).executeTakeFirst();
  },

  /** Rollup sums per kind and key from `fromDay` on: a range of the rollup primary key. */
  sumRollups(db: Db, customerId: string, fromDay: string | null) {
    if (fromDay === null) {
      // The whole history: the all-time totals, a range of their primary key.
      return db.selectFrom('behaviour_totals').select(['kind', 'key', 'count as num']).where('customer_id', '=', customerId).execute();
    }
    let q = db
      .selectFrom('behaviour_rollups')
      .select(['kind', 'key', sql<number>`sum(count)`.as('num')])
      .where('customer_id', '=', customerId);
    if (fromDay !== null) q = q.where('day', '>=', fromDay);
    return q.groupBy(['kind', 'key']).execute();
  },

  /** One page of a customer's behaviour by when desc, id desc: a range of (customer_id, when_at, id). */
  list(db: Db, customerId: string, from: number | null, to: number | null, offset: number, limit: number) {
    let q = db.selectFrom('behaviour_logs').selectAll().where('customer_id', '=', customerId);
    if (from !== null) q = q.where('when_at', '>=', from);
    if (to !== null) q = q.where('when_at', '<=', to);
    return q.orderBy('when_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
  },

  /** web_page_view records of these site visits (same customer), oldest first. */
  pageViews(db: Db, customerId: string, webAccessLogIds: string[]) {
    if (webAccessLogIds.length === 0) return Promise.resolve([]);
    return (
      db
        .selectFrom('behaviour_logs')
        .select(['id', 'web_access_log_id', 'when_at', 'content'])
        .where('customer_id', '=', customerId)
        .where('web_access_log_id', 'in', webAccessLogIds)
        .where('action', '=', 'web_page_view')
        .execute()
        // Sorted here: an ORDER BY would lead SQLite to walk the customer's whole history by time
        // instead of seeking the (customer_id, web_access_log_id) index.
        .then((rows) => rows.sort((a, b) => a.when_at - b.when_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    );
  },
};
