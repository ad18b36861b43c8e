import { type Database, type DialectFeatures, bulkOps, crossProject } from '../../db/index.ts';
import type { Kysely, Selectable } from 'kysely';
import type { CustomerIdsQuery } from '../customers/mapper.ts';

type Db = Kysely<Database>;
export type CustomerMergeRow = Selectable<Database['customer_merges']>;

/**
 * The read model merges exports to the repositories that follow a survivor's pending merges in their
 * own statements (the behaviour module's reads while the history job moves): the start of a
 * statement over `customer_merges`. Reached through the merges service (`mergeReadModel`); its type
 * is `MergeReadModel` of mapper.ts.
 */
export const mergeReadModel = {
  /** The customers merged into `survivorId` whose history may still name them (`merged_id`). */
  pendingMergedInto(db: Db, appId: string, survivorId: string) {
    return db
      .selectFrom('customer_merges')
      .select('merged_id')
      .where('app_id', '=', appId)
      .where('survivor_id', '=', survivorId)
      .where('moved_at', 'is', null);
  },
};

/** The advisory key that serialises merges (and the job's finishing of a survivor) within a project. */
function projectKey(appId: string): number {
  let h = 0x2f1a;
  for (let i = 0; i < appId.length; i += 1) h = (Math.imul(h, 31) + appId.charCodeAt(i)) | 0;
  return h;
}

export function createMergesRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** Serialises this transaction against every other merge of the project until it ends. */
    async lockProject(trx: Db, appId: string): Promise<void> {
      await features.transactionLock(trx, projectKey(appId));
    },

    /** The customers merged earlier into these (now merged), as a subquery of the customers' update that re-points them. */
    mergedInto(appId: string, mergedIds: string[]): CustomerIdsQuery {
      return (eb) =>
        eb
          .selectFrom('customer_merges as m')
          .select('m.merged_id')
          .where('m.app_id', '=', appId)
          .where(bulk.anyOf('m.survivor_id', mergedIds));
    },

    /** The aliases of customers merged earlier into these (now merged) name the new survivor: one alias hop always reaches a live one. */
    async repointAliases(trx: Db, appId: string, mergedIds: string[], survivorId: string): Promise<void> {
      await trx
        .updateTable('customer_merges')
        .set({ survivor_id: survivorId })
        .where('app_id', '=', appId)
        .where(bulk.anyOf('survivor_id', mergedIds))
        .execute();
    },

    async insertAliases(trx: Db, appId: string, mergedIds: string[], survivorId: string, now: number): Promise<void> {
      await bulk.insert(
        trx,
        'customer_merges',
        mergedIds.map((id) => ({ app_id: appId, merged_id: id, survivor_id: survivorId, merged_at: now, moved_at: null })),
      );
    },

    // ---- The background job ------------------------------------------------------------------

    /** Merges whose history is still to be moved, in every project, oldest first. */
    pending(db: Db, limit: number): Promise<CustomerMergeRow[]> {
      return db
        .selectFrom('customer_merges')
        .selectAll()
        .where('moved_at', 'is', null)
        .orderBy('merged_at')
        .limit(limit)
        .modifyEnd(crossProject('merge-rewrite'))
        .execute();
    },

    /**
     * The merge is done: its alias stays (ingestion naming the merged id still lands on the
     * survivor) but reads no longer take it. True when it was the survivor's last pending merge (its
     * flag then drops).
     */
    async finish(trx: Db, m: CustomerMergeRow, now: number): Promise<boolean> {
      await trx
        .updateTable('customer_merges')
        .set({ moved_at: now })
        .where('app_id', '=', m.app_id)
        .where('merged_id', '=', m.merged_id)
        .where('survivor_id', '=', m.survivor_id)
        .execute();
      const left = await trx
        .selectFrom('customer_merges')
        .select('merged_id')
        .where('app_id', '=', m.app_id)
        .where('survivor_id', '=', m.survivor_id)
        .where('moved_at', 'is', null)
        .limit(1)
        .executeTakeFirst();
      return left === undefined;
    },

    /** The alias as stored now (a later merge may have re-pointed it). */
    alias(trx: Db, m: CustomerMergeRow): Promise<CustomerMergeRow | undefined> {
      return trx
        .selectFrom('customer_merges')
        .selectAll()
        .where('app_id', '=', m.app_id)
        .where('merged_id', '=', m.merged_id)
        .executeTakeFirst();
    },
  };
}
export type MergesRepository = ReturnType<typeof createMergesRepository>;
