/**
 * The tasks module's SQL of what follows a customer: its notes and tasks re-pointed to the customer it
 * was merged into (the merge job's batches), and deleted with it (erasure). Each in the caller's
 * transaction.
 */
import type { Kysely } from 'kysely';
import { type Database, type DialectFeatures, bulkOps, customerMoves } from '../../db/index.ts';

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
  const moves = customerMoves(features);
  return {
    /** Re-points up to `batch` rows of `table` from the merged customer to its survivor; returns how many. */
    move: (trx: Db, table: CustomerTable, m: MergeMove, batch: number): Promise<number> => moves.moveBatch(trx, table, m, batch),

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
