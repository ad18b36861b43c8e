/**
 * The histories' SQL of erasure (erasure.service.ts): the calls and clues that name erased customers,
 * deleted in the erasure's transaction.
 */
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

export function createHistoryErasureRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** Deletes the project's clues made during these views or named by them; returns how many. */
    async deleteClues(trx: Db, appId: string, views: { viewIds: string[]; clueIds: string[] }): Promise<number> {
      const r = await trx
        .deleteFrom('clues')
        .where('app_id', '=', appId)
        .where((eb) => eb.or([bulk.anyOf('link_view_log_id', views.viewIds), bulk.anyOf('id', views.clueIds)]))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    /** Deletes the project's calls of these customers; returns how many. */
    async deleteCalls(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      const r = await trx.deleteFrom('calls').where('app_id', '=', appId).where(bulk.anyOf('customer_id', customerIds)).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
