/**
 * The merges module's SQL of erasure (erasure.service.ts): the aliases of erased customers, in the
 * erasure's transaction.
 */
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

export function createMergeErasureRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** The ids merged into this customer, by their aliases (moved or not). */
    async mergedInto(trx: Db, appId: string, survivorId: string): Promise<string[]> {
      const rows = await trx
        .selectFrom('customer_merges')
        .select('merged_id')
        .where('app_id', '=', appId)
        .where('survivor_id', '=', survivorId)
        .execute();
      return rows.map((r) => r.merged_id);
    },

    /** The survivors of the merges of these customers whose history is still to be moved. */
    async pendingSurvivorsOf(trx: Db, appId: string, mergedIds: string[]): Promise<string[]> {
      const rows = await trx
        .selectFrom('customer_merges')
        .select('survivor_id')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('merged_id', mergedIds))
        .where('moved_at', 'is', null)
        .execute();
      return rows.map((r) => r.survivor_id);
    },

    /** Those of these survivors that a merge still pending is moving history to. */
    async stillPending(trx: Db, appId: string, survivorIds: string[]): Promise<string[]> {
      const rows = await trx
        .selectFrom('customer_merges')
        .select('survivor_id')
        .distinct()
        .where('app_id', '=', appId)
        .where(bulk.anyOf('survivor_id', survivorIds))
        .where('moved_at', 'is', null)
        .execute();
      return rows.map((r) => r.survivor_id);
    },

    /** Deletes the project's aliases that name these customers, merged or survivor; returns how many. */
    async deleteAliases(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      const r = await trx
        .deleteFrom('customer_merges')
        .where('app_id', '=', appId)
        .where((eb) => eb.or([bulk.anyOf('merged_id', customerIds), bulk.anyOf('survivor_id', customerIds)]))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
