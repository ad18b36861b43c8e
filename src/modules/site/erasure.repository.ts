/**
 * The site module's SQL of erasure (erasure.service.ts): the visitors tied to erased customers, with
 * their visits and the anonymous events they left, in the erasure's transaction.
 */
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

const deleted = (r: { numDeletedRows: bigint }) => Number(r.numDeletedRows);

export function createSiteErasureRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  /** The project's visitors tied to these customers, as a subquery. */
  const visitorsOf = (appId: string, customerIds: string[]) => (q: Db) =>
    q.selectFrom('site_visitors as sv').select('sv.id').where('sv.app_id', '=', appId).where(bulk.anyOf('sv.customer_id', customerIds));
  return {
    /** Deletes a visitor-keyed table's rows of the visitors tied to these customers; returns how many. */
    async deleteOfVisitors(trx: Db, table: 'site_visits' | 'site_events', appId: string, customerIds: string[]): Promise<number> {
      return deleted(
        await trx
          .deleteFrom(table as 'site_visits')
          .where('app_id', '=', appId)
          .where('visitor_id', 'in', visitorsOf(appId, customerIds)(trx))
          .executeTakeFirst(),
      );
    },

    /** Deletes the project's visitors tied to these customers; returns how many. */
    async deleteVisitors(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      return deleted(
        await trx.deleteFrom('site_visitors').where('app_id', '=', appId).where(bulk.anyOf('customer_id', customerIds)).executeTakeFirst(),
      );
    },
  };
}
