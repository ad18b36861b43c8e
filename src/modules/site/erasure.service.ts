import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { createSiteErasureRepository } from './erasure.repository.ts';

/**
 * This module's part of erasing customers (docs/customers.md, "Erasure"), in the erasure's
 * transaction: the site visitors tied to them (docs/site-tracking.md, "Identity"), their visits
 * (pages, referrers) and any anonymous events still keyed to them, children first. Each returns the
 * rows it deleted.
 */
export function createSiteErasure(database: DatabaseHandle) {
  const repo = createSiteErasureRepository(database.features);
  return {
    /** The visits of the customers' site visitors: before the visitors. */
    eraseVisits(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteOfVisitors(trx, 'site_visits', appId, customerIds);
    },

    /** The anonymous events of the customers' site visitors: before the visitors. */
    eraseEvents(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteOfVisitors(trx, 'site_events', appId, customerIds);
    },

    /** The site visitors tied to the customers. */
    eraseVisitors(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.deleteVisitors(trx, appId, customerIds);
    },
  };
}

export type SiteErasure = ReturnType<typeof createSiteErasure>;
