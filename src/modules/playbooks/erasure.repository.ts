/**
 * The playbooks module's SQL of what follows a customer: their hits and runs re-pointed to the customer
 * they were merged into (the merge job's batches), and deleted with them (erasure). Each in the
 * caller's transaction.
 */
import type { Kysely } from 'kysely';
import { type CustomerMove, type Database, type DialectFeatures, bulkOps, customerMoves } from '../../db/index.ts';

type Db = Kysely<Database>;

export function createPlaybookRecordsRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  const moves = customerMoves(features);
  return {
    /** Re-points up to `batch` runs of the merged customer (and, with the last batch, their hits) to the survivor; returns how many. */
    async move(trx: Db, m: CustomerMove, batch: number): Promise<number> {
      const moved = await moves.moveBatch(trx, 'playbook_runs', m, batch);
      if (moved === batch) return moved;
      const hits = await trx
        .updateTable('playbook_hits')
        .set({ customer_id: m.survivorId })
        .where('app_id', '=', m.appId)
        .where('customer_id', '=', m.mergedId)
        .executeTakeFirst();
      return moved + Number(hits.numUpdatedRows);
    },

    /** Deletes the project's hits and runs of these customers; returns the runs deleted. */
    async deleteOf(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      await trx.deleteFrom('playbook_hits').where('app_id', '=', appId).where(bulk.anyOf('customer_id', customerIds)).execute();
      const r = await trx
        .deleteFrom('playbook_runs')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', customerIds))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
