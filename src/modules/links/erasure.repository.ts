/**
 * The links module's SQL of erasure (erasure.service.ts): erased customers' views with their page
 * times, their visitors and the agreements those accepted, and their directed links unlinked, in the
 * erasure's transaction.
 */
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

const deleted = (r: { numDeletedRows: bigint }) => Number(r.numDeletedRows);

export function createLinkErasureRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** The ids of the project's views attributed to these customers, and the clues those views name. */
    async viewsOf(trx: Db, appId: string, customerIds: string[]): Promise<{ viewIds: string[]; clueIds: string[] }> {
      const rows = await trx
        .selectFrom('link_view_logs')
        .select(['id', 'clue_id'])
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', customerIds))
        .execute();
      return { viewIds: rows.map((r) => r.id), clueIds: rows.flatMap((r) => (r.clue_id === null ? [] : [r.clue_id])) };
    },

    /** Deletes the page times of the project's views attributed to these customers; returns how many. */
    async deleteDurations(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      return deleted(
        await trx
          .deleteFrom('link_view_durations')
          .where('app_id', '=', appId)
          .where('link_view_log_id', 'in', (q) =>
            q
              .selectFrom('link_view_logs as v')
              .select('v.id')
              .where('v.app_id', '=', appId)
              .where(bulk.anyOf('v.customer_id', customerIds)),
          )
          .executeTakeFirst(),
      );
    },

    /** Deletes the project's rows of `table` that name these customers; returns how many. */
    async deleteOf(trx: Db, table: 'link_view_logs' | 'visitors', appId: string, customerIds: string[]): Promise<number> {
      return deleted(
        await trx
          .deleteFrom(table as 'visitors')
          .where('app_id', '=', appId)
          .where(bulk.anyOf('customer_id', customerIds))
          .executeTakeFirst(),
      );
    },

    /** Deletes the project's agreement acceptances of the visitors tied to these customers; returns how many. */
    async deleteAcceptances(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      return deleted(
        await trx
          .deleteFrom('link_agreement_acceptances')
          .where('app_id', '=', appId)
          .where('visitor_id', 'in', (q) =>
            q.selectFrom('visitors as v').select('v.id').where('v.app_id', '=', appId).where(bulk.anyOf('v.customer_id', customerIds)),
          )
          .executeTakeFirst(),
      );
    },

    /** The project's links directed to these customers addressed to no one (no longer directed); returns how many. */
    async unlink(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      const r = await trx
        .updateTable('links')
        .set({ customer_id: null, is_directional: 0 })
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', customerIds))
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
  };
}
