/**
 * The alerts module's SQL of what follows a customer: its signals, readings and notifications
 * re-pointed to the customer it was merged into (the merge job's batches), and deleted with it
 * (erasure). Each in the caller's transaction.
 */
import type { Kysely } from 'kysely';
import { type Database, type DialectFeatures, bulkOps, customerMoves } from '../../db/index.ts';

type Db = Kysely<Database>;

/** A merged customer whose alerts move to its survivor (ADR 0027). */
export interface MergeMove {
  appId: string;
  mergedId: string;
  survivorId: string;
}

export function createAlertRecordsRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  const moves = customerMoves(features);
  return {
    /** Re-points up to `batch` rows of each table from the merged customer to its survivor; returns how many. */
    async move(trx: Db, m: MergeMove, batch: number): Promise<number> {
      let moved = 0;
      for (const table of ['notifications', 'alert_signals'] as const) moved += await moves.moveBatch(trx, table, m, batch);
      const readings = await trx
        .updateTable('alert_readings')
        .set({ customer_id: m.survivorId })
        .where('app_id', '=', m.appId)
        .where('customer_id', '=', m.mergedId)
        .executeTakeFirst();
      return moved + Number(readings.numUpdatedRows);
    },

    /** Deletes the project's alerts about these customers; returns the ids of their signals (their Alert events' ids). */
    async deleteOf(trx: Db, appId: string, customerIds: string[]): Promise<string[]> {
      await trx.deleteFrom('notifications').where('app_id', '=', appId).where(bulk.anyOf('customer_id', customerIds)).execute();
      await trx.deleteFrom('alert_readings').where('app_id', '=', appId).where(bulk.anyOf('customer_id', customerIds)).execute();
      const rows = await trx
        .deleteFrom('alert_signals')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', customerIds))
        .returning('id')
        .execute();
      return rows.map((r) => r.id);
    },
  };
}
