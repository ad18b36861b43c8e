import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { createHistoryErasureRepository } from './erasure.repository.ts';

/**
 * This module's part of erasing customers (the erasure module orchestrates: docs/customers.md,
 * "Erasure"): their calls, and the clues (form submissions: a name, an e-mail, a phone) made during
 * their link views, in the erasure's transaction. Each function returns the rows it deleted.
 */
export function createHistoryErasure(database: DatabaseHandle) {
  const repo = createHistoryErasureRepository(database.features);
  return {
    /**
     * The clues of these views: made during one (`link_view_log_id`) or named by one (its `clue_id`).
     * The views are the links module's (its erasure's `viewsOf`), read before they are deleted.
     */
    eraseClues(trx: Kysely<Database>, appId: string, views: { viewIds: string[]; clueIds: string[] }): Promise<number> {
      return repo.deleteClues(trx, appId, views);
    },

    /** The customers' calls. */
    eraseCalls(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteCalls(trx, appId, customerIds);
    },
  };
}

export type HistoryErasure = ReturnType<typeof createHistoryErasure>;
