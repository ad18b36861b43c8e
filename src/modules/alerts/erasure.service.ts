import type { Kysely } from 'kysely';
import type { Database, DatabaseHandle } from '../../db/index.ts';
import { eventBodyEraser } from '../../events/outbox.ts';
import { type MergeMove, createAlertRecordsRepository } from './erasure.repository.ts';

/**
 * Alerts follow their customer: moved to the customer it was merged into, by the merge job's batches
 * (the merges module's MOVES), and deleted with it (erasure's steps, with the bodies of their Alert
 * events still in the outbox, which name the customer). Each in the caller's transaction.
 */
export function createAlertMergeMoves(database: DatabaseHandle) {
  const repo = createAlertRecordsRepository(database.features);
  return {
    /** Re-points up to `batch` notifications and signals (and the readings) of a merged customer to its survivor; returns how many. */
    moveAlerts(trx: Kysely<Database>, m: MergeMove, batch: number): Promise<number> {
      return repo.move(trx, m, batch);
    },
  };
}

export type AlertMergeMoves = ReturnType<typeof createAlertMergeMoves>;

/** This module's part of erasing customers (the erasure module orchestrates: docs/customers.md, "Erasure"). */
export function createAlertErasure(database: DatabaseHandle) {
  const repo = createAlertRecordsRepository(database.features);
  const emptyEvents = eventBodyEraser(database.features);
  return {
    /** The customers' signals, readings and notifications, and the bodies of their Alert events still in the outbox; returns the signals deleted. */
    async eraseAlerts(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      const ids = await repo.deleteOf(trx, appId, customerIds);
      await emptyEvents(trx, appId, 'Alert', ids);
      return ids.length;
    },
  };
}

export type AlertErasure = ReturnType<typeof createAlertErasure>;
