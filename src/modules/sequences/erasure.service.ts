import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { eventBodyEraser } from '../../events/outbox.ts';
import { customerVisibilityReadModel } from '../customers/service.ts';
import { createEnrollmentsRepository } from './enrollments.repository.ts';
import { type MergeMove, createSequenceRecordsRepository } from './erasure.repository.ts';
import { createLifecycle } from './lifecycle.ts';

/**
 * Enrolments follow their customer: moved to the customer it was merged into by the merge job's
 * batches (the merges module's MOVES); where the survivor is already in the same sequence, the merged
 * customer's enrolment exits `merged` instead (a customer runs a sequence once). Deleted with the
 * customer (erasure's steps), with their step runs and the bodies of their Enrollment events still in
 * the outbox. Each in the caller's transaction.
 */
export function createSequenceMergeMoves(ctx: AppContext) {
  const repo = createSequenceRecordsRepository(ctx.database.features);
  const lifecycle = createLifecycle(ctx, createEnrollmentsRepository(ctx.database.features, customerVisibilityReadModel));
  return {
    /** Re-points (or exits) up to `batch` enrolments of a merged customer; returns how many. */
    async moveEnrollments(trx: Kysely<Database>, m: MergeMove, batch: number): Promise<number> {
      const moved = await repo.move(trx, m, batch);
      if (moved === batch) return moved;
      const doubled = await repo.doubled(trx, m, batch - moved);
      const exited = await lifecycle.exitIds(trx, m.appId, doubled, { reason: 'merged', now: ctx.clock.now() });
      return moved + exited.length;
    },
  };
}

export type SequenceMergeMoves = ReturnType<typeof createSequenceMergeMoves>;

/** This module's part of erasing customers (the erasure module orchestrates: docs/customers.md, "Erasure"). */
export function createSequenceErasure(ctx: AppContext) {
  const repo = createSequenceRecordsRepository(ctx.database.features);
  const emptyEvents = eventBodyEraser(ctx.database.features);
  return {
    /** The customers' enrolments and step runs, and the bodies of their Enrollment events; returns the enrolments deleted. */
    async eraseEnrollments(trx: Kysely<Database>, appId: string, customerIds: string[]): Promise<number> {
      const ids = await repo.deleteOf(trx, appId, customerIds);
      await emptyEvents(trx, appId, 'Enrollment', ids);
      return ids.length;
    },
  };
}

export type SequenceErasure = ReturnType<typeof createSequenceErasure>;
