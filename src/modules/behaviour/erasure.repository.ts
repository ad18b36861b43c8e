/**
 * The behaviour module's SQL of erasure (erasure.service.ts): the records and counters of erased
 * customers, deleted in the erasure's transaction.
 */
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

/** The tables this module erases customers from. */
export type ErasedBehaviourTable = 'behaviour_logs' | 'behaviour_rollups' | 'behaviour_totals';

export function createBehaviourErasureRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** Deletes the project's rows of `table` that belong to these customers; returns how many. */
    async deleteOf(trx: Db, table: ErasedBehaviourTable, appId: string, customerIds: string[]): Promise<number> {
      const r = await trx
        .deleteFrom(table as 'behaviour_logs')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', customerIds))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
