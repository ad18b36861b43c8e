/**
 * The links module's SQL of a customer merge (merge-moves.service.ts, for the merges module): the
 * visitors tied to merged customers, and the batches of views and links moved to the survivor.
 */
import { type CustomerMove, type Database, type DialectFeatures, bulkOps, customerMoves } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

/** The link tables whose rows name a customer in `customer_id`, moved in batches. */
export type MovedLinkTable = 'link_view_logs' | 'links';

export function createLinkMergeWrites(features: DialectFeatures) {
  const bulk = bulkOps(features);
  const moves = customerMoves(features);
  return {
    /** Visitors (cookies) tied to merged customers: few, moved at once. */
    async moveVisitors(trx: Db, appId: string, mergedIds: string[], survivorId: string, now: number): Promise<void> {
      await trx
        .updateTable('visitors')
        .set({ customer_id: survivorId, updated_at: now })
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', mergedIds))
        .execute();
    },

    /** Moves up to `batch` rows of one link table from the merged customer to the survivor; returns how many. */
    moveBatch: (trx: Db, table: MovedLinkTable, m: CustomerMove, batch: number): Promise<number> => moves.moveBatch(trx, table, m, batch),
  };
}
