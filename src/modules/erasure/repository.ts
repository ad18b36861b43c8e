import { type Database, bulkOps, crossProject, type DialectFeatures } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

/**
 * One table's part of erasing customers: deletes (or, for records that are not the customer's own,
 * unlinks) the rows that name any of `ids` in project `appId`, and returns how many it touched.
 */
interface ErasureStep {
  table: string;
  run(trx: Db, appId: string, ids: string[], anyOf: ReturnType<typeof bulkOps>['anyOf']): Promise<number>;
}

const count = (r: { numDeletedRows?: bigint; numUpdatedRows?: bigint }[]) =>
  r.reduce((n, x) => n + Number(x.numDeletedRows ?? x.numUpdatedRows ?? 0n), 0);

/** The rows of a table whose `customer_id` names one of the customers. */
const byCustomer = (
  table: 'link_view_logs' | 'behaviour_logs' | 'behaviour_rollups' | 'behaviour_totals' | 'calls' | 'visitors',
): ErasureStep => ({
  table,
  run: async (trx, appId, ids, anyOf) =>
    count(
      await trx
        .deleteFrom(table as 'calls')
        .where('app_id', '=', appId)
        .where(anyOf('customer_id', ids))
        .execute(),
    ),
});

/**
 * EVERY table that references a customer, in the order the deletes run (children before the rows
 * they hang on). A feature that adds a table naming customers (mail logs, …) adds its step here:
 * this list is the one place erasure learns about it (docs/customers.md, "Erasure").
 */
export const ERASURE_STEPS: readonly ErasureStep[] = [
  {
    // Form submissions made during the customer's views (their name, e-mail, phone).
    table: 'clues',
    run: async (trx, appId, ids, anyOf) =>
      count(
        await trx
          .deleteFrom('clues')
          .where('app_id', '=', appId)
          .where((eb) =>
            eb.or([
              eb(
                'link_view_log_id',
                'in',
                eb.selectFrom('link_view_logs as v').select('v.id').where('v.app_id', '=', appId).where(anyOf('v.customer_id', ids)),
              ),
              eb(
                'id',
                'in',
                eb
                  .selectFrom('link_view_logs as w')
                  .select('w.clue_id')
                  .where('w.app_id', '=', appId)
                  .where(anyOf('w.customer_id', ids))
                  .where('w.clue_id', 'is not', null),
              ),
            ]),
          )
          .execute(),
      ),
  },
  {
    table: 'link_view_durations',
    run: async (trx, appId, ids, anyOf) =>
      count(
        await trx
          .deleteFrom('link_view_durations')
          .where('app_id', '=', appId)
          .where('link_view_log_id', 'in', (q) =>
            q.selectFrom('link_view_logs as v').select('v.id').where('v.app_id', '=', appId).where(anyOf('v.customer_id', ids)),
          )
          .execute(),
      ),
  },
  byCustomer('link_view_logs'),
  byCustomer('behaviour_logs'),
  byCustomer('behaviour_rollups'),
  byCustomer('behaviour_totals'),
  byCustomer('calls'),
  {
    // A directed link is the sales user's material: it stays, addressed to no one.
    table: 'links',
    run: async (trx, appId, ids, anyOf) =>
      count(
        await trx
          .updateTable('links')
          .set({ customer_id: null, is_directional: 0 })
          .where('app_id', '=', appId)
          .where(anyOf('customer_id', ids))
          .execute(),
      ),
  },
  byCustomer('visitors'),
  {
    table: 'customer_merges',
    run: async (trx, appId, ids, anyOf) =>
      count(
        await trx
          .deleteFrom('customer_merges')
          .where('app_id', '=', appId)
          .where((eb) => eb.or([anyOf('merged_id', ids), anyOf('survivor_id', ids)]))
          .execute(),
      ),
  },
  {
    // Customer events still in the outbox carry the customer object.
    table: 'outbox',
    run: async (trx, appId, ids, anyOf) =>
      count(
        await trx
          .updateTable('outbox')
          .set({ body: '{}' })
          .where('app_id', '=', appId)
          .where('domain_type', '=', 'Customer')
          .where(anyOf('domain_id', ids))
          .execute(),
      ),
  },
  {
    table: 'customers',
    run: async (trx, appId, ids, anyOf) =>
      count(await trx.deleteFrom('customers').where('app_id', '=', appId).where(anyOf('id', ids)).execute()),
  },
];

export function createErasureRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
    /** The customer, whatever its status. */
    async customer(trx: Db, appId: string, id: string): Promise<{ id: string; app_id: string; status: number } | undefined> {
      return trx
        .selectFrom('customers')
        .select(['id', 'app_id', 'status'])
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** The customers merged into it (the same person's records): erased with it. */
    async mergedInto(trx: Db, appId: string, id: string): Promise<string[]> {
      const rows = await trx
        .selectFrom('customers')
        .select('id')
        .where('app_id', '=', appId)
        .where('id', 'in', (q) =>
          q.selectFrom('customer_merges as m').select('m.merged_id').where('m.app_id', '=', appId).where('m.survivor_id', '=', id),
        )
        .execute();
      return rows.map((r) => r.id);
    },

    /** The project of a customer id (the CLI names the customer only). */
    async projectOf(db: Db, id: string): Promise<string | undefined> {
      return (
        await db.selectFrom('customers').select('app_id').where('id', '=', id).modifyEnd(crossProject('record-by-id')).executeTakeFirst()
      )?.app_id;
    },

    /** The customers that erased customers were being merged into while their history still moved. */
    async pendingSurvivors(trx: Db, appId: string, ids: string[]): Promise<string[]> {
      const rows = await trx
        .selectFrom('customer_merges')
        .select('survivor_id')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('merged_id', ids))
        .where('moved_at', 'is', null)
        .execute();
      return [...new Set(rows.map((r) => r.survivor_id))].filter((id) => !ids.includes(id));
    },

    /** A survivor with no pending merge left reads its own history only again. */
    async settleSurvivors(trx: Db, appId: string, survivorIds: string[]): Promise<void> {
      if (survivorIds.length === 0) return;
      await trx
        .updateTable('customers')
        .set({ merge_pending: 0 })
        .where('app_id', '=', appId)
        .where(bulk.anyOf('id', survivorIds))
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('customer_merges as m')
                .select('m.merged_id')
                .where('m.app_id', '=', appId)
                .whereRef('m.survivor_id', '=', 'customers.id')
                .where('m.moved_at', 'is', null),
            ),
          ),
        )
        .execute();
    },

    /** Runs every step; returns what each touched. */
    async erase(trx: Db, appId: string, ids: string[]): Promise<Record<string, number>> {
      const out: Record<string, number> = {};
      for (const step of ERASURE_STEPS) out[step.table] = await step.run(trx, appId, ids, (c, v) => bulk.anyOf(c, v));
      return out;
    },
  };
}
