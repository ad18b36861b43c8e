import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { createCustomerErasureRepository } from './erasure.repository.ts';

/**
 * What the erasure module needs of customers (docs/customers.md, "Erasure"), in the erasure's
 * transaction: the customer to erase and those merged into it, looked up whatever their status; the
 * merge flag of the survivors an erased customer leaves; their custom field values; the customer
 * rows, deleted last.
 */
export function createCustomerErasure(database: DatabaseHandle) {
  const repo = createCustomerErasureRepository(database.features);
  return {
    /** The customer, whatever its status (deleted and merged customers can be erased). */
    find(trx: Kysely<Database>, appId: string, id: string): Promise<{ id: string; app_id: string; status: number } | undefined> {
      return repo.customer(trx, appId, id);
    },

    /** Those of these ids that are stored customers of the project, in the order given. */
    async stored(trx: Kysely<Database>, appId: string, ids: string[]): Promise<string[]> {
      const found = new Set(await repo.stored(trx, appId, ids));
      return ids.filter((id) => found.has(id));
    },

    /** The project of a customer id (`rapport erase customer ID` names the customer only), or undefined. */
    projectOf(db: Kysely<Database>, id: string): Promise<string | undefined> {
      return repo.projectOf(db, id);
    },

    /**
     * Survivors with no pending merge left (the merges module's `settled`) read their own history
     * only again (ADR 0027).
     */
    settleMerges(trx: Kysely<Database>, appId: string, survivorIds: string[]): Promise<void> {
      return repo.clearMergePending(trx, appId, survivorIds);
    },

    /** Deletes the customers' custom field values (their ext attributes); returns how many. */
    eraseFieldValues(trx: Kysely<Database>, appId: string, ids: string[]): Promise<number> {
      return repo.deleteFieldValues(trx, appId, ids);
    },

    /** Deletes the customers, after every row that names them; returns how many. */
    eraseCustomers(trx: Kysely<Database>, appId: string, ids: string[]): Promise<number> {
      return repo.delete(trx, appId, ids);
    },
  };
}

export type CustomerErasure = ReturnType<typeof createCustomerErasure>;
