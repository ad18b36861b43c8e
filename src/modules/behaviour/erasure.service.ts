import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { createBehaviourErasureRepository } from './erasure.repository.ts';

/**
 * This module's part of erasing customers (the erasure module orchestrates: docs/customers.md,
 * "Erasure"): their behaviour records and the overview counters summed from them, in the erasure's
 * transaction. Each function returns the rows it deleted.
 */
export function createBehaviourErasure(database: DatabaseHandle) {
  const repo = createBehaviourErasureRepository(database.features);
  return {
    /** The customers' behaviour records. */
    eraseRecords(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteOf(trx, 'behaviour_logs', appId, customerIds);
    },

    /** The customers' daily rollups. */
    eraseRollups(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteOf(trx, 'behaviour_rollups', appId, customerIds);
    },

    /** The customers' all-time totals. */
    eraseTotals(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteOf(trx, 'behaviour_totals', appId, customerIds);
    },
  };
}

export type BehaviourErasure = ReturnType<typeof createBehaviourErasure>;
