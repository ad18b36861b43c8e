import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { createMergeErasureRepository } from './erasure.repository.ts';

/**
 * This module's part of erasing customers (the erasure module orchestrates: docs/customers.md,
 * "Erasure"), in the erasure's transaction: which customers go with the one erased (those merged
 * into it), which survivors an erased merged customer leaves (ADR 0027), and the aliases.
 */
export function createMergeErasure(database: DatabaseHandle) {
  const repo = createMergeErasureRepository(database.features);
  return {
    /** The ids merged into this customer (the same person's records), whether their history moved or not. */
    mergedInto(trx: Kysely<Database>, appId: string, customerId: string): Promise<string[]> {
      return repo.mergedInto(trx, appId, customerId);
    },

    /**
     * The customers these were being merged into while their history still moved, these left out:
     * once the erasure is done, each may have no pending merge left (`settled`).
     */
    async pendingSurvivors(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<string[]> {
      const survivors = await repo.pendingSurvivorsOf(trx, appId, customerIds);
      return [...new Set(survivors)].filter((id) => !customerIds.includes(id));
    },

    /** Those of these survivors with no pending merge left: they read their own history only again. */
    async settled(trx: Kysely<Database>, appId: string, survivorIds: string[]): Promise<string[]> {
      if (survivorIds.length === 0) return [];
      const pending = new Set(await repo.stillPending(trx, appId, survivorIds));
      return survivorIds.filter((id) => !pending.has(id));
    },

    /** The aliases naming the customers, merged or survivor; returns how many were deleted. */
    eraseAliases(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteAliases(trx, appId, customerIds);
    },
  };
}

export type MergeErasure = ReturnType<typeof createMergeErasure>;
