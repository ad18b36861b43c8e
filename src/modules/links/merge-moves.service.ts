import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { createLinkMergeWrites } from './merge-moves.repository.ts';

/** A merged customer whose rows move to its survivor (ADR 0027). */
export interface LinkMergeMove {
  appId: string;
  mergedId: string;
  survivorId: string;
}

/**
 * What a customer merge moves of the links module's rows, in the caller's transaction (the merges
 * module): the visitors at once inside the merge, the views and links by the history job in batches.
 */
export function createLinkMergeMoves(database: DatabaseHandle) {
  const writes = createLinkMergeWrites(database.features);
  return {
    /** Visitors (cookies) tied to the merged customers now name the survivor: their next visit lands on it. */
    moveVisitors(trx: Kysely<Database>, m: { appId: string; mergedIds: string[]; survivorId: string }, now: number): Promise<void> {
      return writes.moveVisitors(trx, m.appId, m.mergedIds, m.survivorId, now);
    },

    /** Re-points up to `batch` views (link_view_logs) of a merged customer to its survivor; returns how many. */
    moveViews(trx: Kysely<Database>, m: LinkMergeMove, batch: number): Promise<number> {
      return writes.moveBatch(trx, 'link_view_logs', m, batch);
    },

    /** Re-points up to `batch` links of a merged customer to its survivor; returns how many. */
    moveLinks(trx: Kysely<Database>, m: LinkMergeMove, batch: number): Promise<number> {
      return writes.moveBatch(trx, 'links', m, batch);
    },
  };
}

export type LinkMergeMoves = ReturnType<typeof createLinkMergeMoves>;
