/**
 * The tasks module's SQL of what follows a customer: its notes and tasks re-pointed to the customer it
 * was merged into (the merge job's batches), and deleted with it (erasure). Each in the caller's
 * transaction.
 */
import type { Kysely } from 'kysely';
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';

type Db = Kysely<Database>;

/** The tables of this module that name customers. */
export type CustomerTable = 'notes' | 'tasks';

/** A merged customer whose notes and tasks move to its survivor (ADR 0027). */
export interface MergeMove {
  appId: string;
  mergedId: string;
  survivorId: string;
}

export function createTaskRecordsRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** Re-points up to `batch` rows of `table` from the merged customer to its survivor; returns how many. */
    async move(trx: Db, table: CustomerTable, m: MergeMove, batch: number): Promise<number> {
      const rows = await trx
        .selectFrom(table as 'notes')
        .select('id')
        .where('app_id', '=', m.appId)
        .where('customer_id', '=', m.mergedId)
        .limit(batch)
        .execute();
      if (rows.length === 0) return 0;
      await trx
        .updateTable(table as 'notes')
        .set({ customer_id: m.survivorId })
        .where(features.projectIs('app_id', m.appId))
        .where(
          bulk.anyOf(
            'id',
            rows.map((r) => r.id),
          ),
        )
        .execute();
      return rows.length;
    },

    /** Deletes the project's rows of `table` about these customers; returns their ids. */
    async deleteOf(trx: Db, table: CustomerTable, appId: string, customerIds: string[]): Promise<string[]> {
      const rows = await trx
        .deleteFrom(table as 'notes')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', customerIds))
        .returning('id')
        .execute();
      return rows.map((r) => r.id);
    },
  };
}
