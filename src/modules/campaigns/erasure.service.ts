import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { createCampaignErasureRepository } from './erasure.repository.ts';

/**
 * This module's part of erasing customers (docs/customers.md, "Erasure"), in the erasure's
 * transaction. A campaign's recipient row keeps its state and counters (the campaign's figures stay
 * true) but loses the address, the merge values and the customer; a mail still queued for them is
 * cancelled. The suppression list is kept: an unsubscribed address stays unsubscribed.
 */
export function createCampaignErasure(database: DatabaseHandle) {
  const repo = createCampaignErasureRepository(database.features);
  return {
    /** Makes the customers' recipient rows anonymous; returns how many. */
    anonymizeRecipients(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      return repo.anonymizeRecipients(trx, appId, customerIds);
    },
  };
}

export type CampaignErasure = ReturnType<typeof createCampaignErasure>;
