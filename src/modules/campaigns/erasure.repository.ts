/**
 * The campaigns module's SQL of erasure (erasure.service.ts): erased customers' recipient rows made
 * anonymous, in the erasure's transaction.
 */
import { type Database, type DialectFeatures, bulkOps } from '../../db/index.ts';
import { type Kysely, sql } from 'kysely';

type Db = Kysely<Database>;

export function createCampaignErasureRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /**
     * Empties the address, the merge values and the customer of these customers' recipient rows, and
     * cancels those still queued; returns how many rows it changed.
     */
    async anonymizeRecipients(trx: Db, appId: string, customerIds: string[]): Promise<number> {
      const r = await trx
        .updateTable('campaign_recipients')
        .set({
          customer_id: '',
          email: '',
          email_norm: '',
          fields: '{}',
          error: null,
          state: sql<string>`CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END`,
        })
        .where('app_id', '=', appId)
        .where(bulk.anyOf('customer_id', customerIds))
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
  };
}
