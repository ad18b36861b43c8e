import type { Kysely } from 'kysely';

/**
 * All-time overview counts per customer × kind × key, beside the daily rollups: the default
 * ("all") overview window reads these, so its cost depends on the number of keys only, not on how
 * many days or records a customer has.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('behaviour_totals')
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('behaviour_totals_pk', ['customer_id', 'kind', 'key'])
    .execute();
}
