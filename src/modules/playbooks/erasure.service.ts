import type { Kysely } from 'kysely';
import type { CustomerMove, Database, DatabaseHandle } from '../../db/index.ts';
import { createPlaybookRecordsRepository } from './erasure.repository.ts';

/**
 * Playbook hits and runs follow their customer (docs/playbooks.md "Merges and erasure"): moved to the
 * customer it was merged into by the merge job's batches (the merges module's MOVES), deleted with it
 * (erasure's steps). A moved run keeps its run key: a playbook limited to `once` that acted on the
 * merged customer may still act once on the survivor. Each in the caller's transaction.
 */
export function createPlaybookMergeMoves(database: DatabaseHandle) {
  const repo = createPlaybookRecordsRepository(database.features);
  return {
    /** Re-points up to `batch` runs and hits of a merged customer to its survivor; returns how many. */
    movePlaybookRuns(trx: Kysely<Database>, m: CustomerMove, batch: number): Promise<number> {
      return repo.move(trx, m, batch);
    },
  };
}

export type PlaybookMergeMoves = ReturnType<typeof createPlaybookMergeMoves>;

/** This module's part of erasing customers (the erasure module orchestrates: docs/customers.md, "Erasure"). */
export function createPlaybookErasure(database: DatabaseHandle) {
  const repo = createPlaybookRecordsRepository(database.features);
  return {
    /** The customers' playbook hits and runs (what the runs made, tasks or alerts, is erased by its owner); returns the runs deleted. */
    erasePlaybookRuns(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteOf(trx, appId, customerIds);
    },
  };
}

export type PlaybookErasure = ReturnType<typeof createPlaybookErasure>;
