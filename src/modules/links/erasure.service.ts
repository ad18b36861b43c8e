import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { createLinkErasureRepository } from './erasure.repository.ts';

/**
 * This module's part of erasing customers (the erasure module orchestrates: docs/customers.md,
 * "Erasure"), in the erasure's transaction. Each erase function returns the rows it deleted (or, for
 * links, unlinked).
 */
export function createLinkErasure(database: DatabaseHandle) {
  const repo = createLinkErasureRepository(database.features);
  return {
    /**
     * The customers' views and the clues they name, for the histories module's erasure of the forms
     * filled during them: read before the views are deleted.
     */
    viewsOf(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<{ viewIds: string[]; clueIds: string[] }> {
      return repo.viewsOf(trx, appId, customerIds);
    },

    /** The page times of the customers' views: before the views they hang on. */
    eraseViewDurations(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteDurations(trx, appId, customerIds);
    },

    /** The views attributed to the customers. */
    eraseViews(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteOf(trx, 'link_view_logs', appId, customerIds);
    },

    /** A directed link is the sales user's material: it stays, addressed to no one. */
    unlinkCustomers(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.unlink(trx, appId, customerIds);
    },

    /** The agreements accepted by the visitors tied to the customers (their address, name, client): before the visitors. */
    eraseAcceptances(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteAcceptances(trx, appId, customerIds);
    },

    /** The visitors (the viewer's cookie ids) tied to the customers. */
    eraseVisitors(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteOf(trx, 'visitors', appId, customerIds);
    },
  };
}

export type LinkErasure = ReturnType<typeof createLinkErasure>;
