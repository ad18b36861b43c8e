import type { Kysely } from 'kysely';
import type { Database, DatabaseHandle } from '../../db/index.ts';
import { eventBodyEraser } from '../../events/outbox.ts';
import { type MergeMove, createTaskRecordsRepository } from './erasure.repository.ts';

/**
 * Notes and tasks follow their customer: moved to the customer it was merged into, by the merge
 * job's batches (the merges module's MOVES), and deleted with it (erasure's steps, with the bodies of
 * their events still in the outbox). Each in the caller's transaction.
 */
export function createTaskMergeMoves(database: DatabaseHandle) {
  const repo = createTaskRecordsRepository(database.features);
  return {
    /** Re-points up to `batch` notes of a merged customer to its survivor; returns how many. */
    moveNotes(trx: Kysely<Database>, m: MergeMove, batch: number): Promise<number> {
      return repo.move(trx, 'notes', m, batch);
    },
    /** Re-points up to `batch` tasks of a merged customer to its survivor; returns how many. */
    moveTasks(trx: Kysely<Database>, m: MergeMove, batch: number): Promise<number> {
      return repo.move(trx, 'tasks', m, batch);
    },
  };
}

export type TaskMergeMoves = ReturnType<typeof createTaskMergeMoves>;

/** This module's part of erasing customers (the erasure module orchestrates: docs/customers.md, "Erasure"). */
export function createTaskErasure(database: DatabaseHandle) {
  const repo = createTaskRecordsRepository(database.features);
  const emptyEvents = eventBodyEraser(database.features);
  return {
    /** The customers' notes, and the bodies of their Note events still in the outbox (what was written about them); returns the notes deleted. */
    async eraseNotes(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      const ids = await repo.deleteOf(trx, 'notes', appId, customerIds);
      await emptyEvents(trx, appId, 'Note', ids);
      return ids.length;
    },
    /** The customers' tasks, and the bodies of their Task events still in the outbox; returns the tasks deleted. */
    async eraseTasks(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      const ids = await repo.deleteOf(trx, 'tasks', appId, customerIds);
      await emptyEvents(trx, appId, 'Task', ids);
      return ids.length;
    },
  };
}

export type TaskErasure = ReturnType<typeof createTaskErasure>;
