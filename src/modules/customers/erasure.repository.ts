/**
 * The customers' SQL of erasure (erasure.service.ts): the look-ups of the customers to erase, the
 * survivors' merge flag, and the rows deleted, in the erasure's transaction.
 */
import { type Database, type DialectFeatures, bulkOps, crossProject } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

export function createCustomerErasureRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** The customer, whatever its status. */
    customer(trx: Db, appId: string, id: string): Promise<{ id: string; app_id: string; status: number } | undefined> {
      return trx
        .selectFrom('customers')
        .select(['id', 'app_id', 'status'])
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Those of these ids that are customers of the project, whatever their status. */
    async stored(trx: Db, appId: string, ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await trx.selectFrom('customers').select('id').where('app_id', '=', appId).where(bulk.anyOf('id', ids)).execute();
      return rows.map((r) => r.id);
    },

    /** The project of a customer id, in any project. */
    async projectOf(db: Db, id: string): Promise<string | undefined> {
      return (
        await db.selectFrom('customers').select('app_id').where('id', '=', id).modifyEnd(crossProject('record-by-id')).executeTakeFirst()
      )?.app_id;
    },

    /** Drops the merge-pending flag of these customers of the project. */
    async clearMergePending(trx: Db, appId: string, ids: string[]): Promise<void> {
      if (ids.length === 0) return;
      await trx.updateTable('customers').set({ merge_pending: 0 }).where('app_id', '=', appId).where(bulk.anyOf('id', ids)).execute();
    },

    /** Deletes the custom field values of these customers of the project; returns how many. */
    async deleteFieldValues(trx: Db, appId: string, ids: string[]): Promise<number> {
      const r = await trx
        .deleteFrom('customer_field_values')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', ids))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    /** Deletes these customers of the project; returns how many. */
    async delete(trx: Db, appId: string, ids: string[]): Promise<number> {
      const r = await trx.deleteFrom('customers').where('app_id', '=', appId).where(bulk.anyOf('id', ids)).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
