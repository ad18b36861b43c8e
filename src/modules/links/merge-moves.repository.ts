/**
 * The links module's SQL of a customer merge (merge-moves.service.ts, for the merges module): the
 * visitors tied to merged customers, and the batches of views and links moved to the survivor.
 */
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

/** The link tables whose rows name a customer in `customer_id`, moved in batches. */
export type MovedLinkTable = 'link_view_logs' | 'links';

export function createLinkMergeWrites(features: DialectFeatures) {
  const bulk = bulkOps(features);
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
    async moveBatch(
      trx: Db,
      table: MovedLinkTable,
      m: { appId: string; mergedId: string; survivorId: string },
      batch: number,
    ): Promise<number> {
      const ids = (await trx
        .selectFrom(table)
        .select('id')
        .where('app_id', '=', m.appId)
        .where('customer_id', '=', m.mergedId)
        .limit(batch)
        .execute()) as { id: string }[];
      if (ids.length === 0) return 0;
      const list = ids.map((r) => r.id);
      await trx
        .updateTable(table)
        .set({ customer_id: m.survivorId })
        // By primary key, the project checked on the rows found (SQLite would otherwise walk the project's index).
        .where(features.projectIs('app_id', m.appId))
        .where(bulk.anyOf('id', list))
        .execute();
      return list.length;
    },
  };
}
