/**
 * The sequences module's SQL of what follows a customer: enrolments re-pointed to the customer it
 * was merged into (the merge job's batches), and deleted with it (erasure), with their step runs.
 * Each in the caller's transaction.
 */
import type { Kysely } from 'kysely';
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';

type Db = Kysely<Database>;

/** A merged customer whose enrolments move to its survivor (ADR 0027). */
export interface MergeMove {
  appId: string;
  mergedId: string;
  survivorId: string;
}

export function createSequenceRecordsRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);

  /** The merged customer's enrolments in sequences the survivor is, or is not, enrolled in. */
  function ofMerged(trx: Db, m: MergeMove, survivorEnrolled: boolean) {
    return trx
      .selectFrom('sequence_enrollments as e')
      .select('e.id')
      .where('e.app_id', '=', m.appId)
      .where('e.customer_id', '=', m.mergedId)
      .where((eb) => {
        const survivor = eb
          .selectFrom('sequence_enrollments as s')
          .select('s.id')
          .where('s.app_id', '=', m.appId)
          .whereRef('s.sequence_id', '=', 'e.sequence_id')
          .where('s.customer_id', '=', m.survivorId);
        return survivorEnrolled ? eb.exists(survivor) : eb.not(eb.exists(survivor));
      });
  }

  return {
    /** Re-points up to `batch` enrolments (with their step runs) in sequences the survivor is not in; returns how many. */
    async move(trx: Db, m: MergeMove, batch: number): Promise<number> {
      const ids = (await ofMerged(trx, m, false).limit(batch).execute()).map((r) => r.id);
      if (ids.length === 0) return 0;
      await trx
        .updateTable('sequence_enrollments')
        .set({ customer_id: m.survivorId })
        .where('app_id', '=', m.appId)
        .where(bulk.anyOf('id', ids))
        .execute();
      await trx
        .updateTable('sequence_step_runs')
        .set({ customer_id: m.survivorId })
        .where('app_id', '=', m.appId)
        .where(bulk.anyOf('enrollment_id', ids))
        .execute();
      return ids.length;
    },

    /** Up to `batch` active or paused enrolments of the merged customer in sequences the survivor is in too. */
    async doubled(trx: Db, m: MergeMove, batch: number): Promise<string[]> {
      const rows = await ofMerged(trx, m, true).where('e.state', 'in', ['active', 'paused']).limit(batch).execute();
      return rows.map((r) => r.id);
    },

    /** Deletes the project's enrolments of these customers with their step runs; returns the enrolments' ids. */
    async deleteOf(trx: Db, appId: string, customerIds: string[]): Promise<string[]> {
      await trx.deleteFrom('sequence_step_runs').where('app_id', '=', appId).where(bulk.anyOf('customer_id', customerIds)).execute();
      const rows = await trx
        .deleteFrom('sequence_enrollments')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', customerIds))
        .returning('id')
        .execute();
      return rows.map((r) => r.id);
    },
  };
}
