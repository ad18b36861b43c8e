import { type Kysely, sql } from 'kysely';

/**
 * Customer merge and erasure (docs/customers.md, ADR 0027): the alias table that names, for each
 * merged customer, the customer it was merged into (reads of the survivor's history go through it
 * until its history has been moved, and ingestion that names a merged customer lands on the
 * survivor through it), the survivor's count of merges whose history is still being moved, and
 * the indexes by customer that moving and erasing a customer's history seek.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customer_merges')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('merged_id', 'text', (c) => c.notNull())
    .addColumn('survivor_id', 'text', (c) => c.notNull())
    .addColumn('merged_at', 'bigint', (c) => c.notNull())
    // Null while the merged customer's history still names it; set once the background job moved it all.
    .addColumn('moved_at', 'bigint')
    .addPrimaryKeyConstraint('customer_merges_pk', ['app_id', 'merged_id'])
    .execute();
  await db.schema.createIndex('customer_merges_survivor_idx').on('customer_merges').columns(['app_id', 'survivor_id']).execute();
  await db.schema.createIndex('customer_merges_pending_idx').on('customer_merges').columns(['moved_at', 'merged_at']).execute();
  // 1 while a merge into this customer still has history to move: its reads then take the merged customers too.
  await sql`alter table customers add column merge_pending integer not null default 0`.execute(db);
  await db.schema.createIndex('calls_customer_idx').on('calls').columns(['app_id', 'customer_id']).execute();
  await db.schema.createIndex('link_view_logs_customer_idx').on('link_view_logs').columns(['app_id', 'customer_id']).execute();
  await db.schema.createIndex('links_customer_idx').on('links').columns(['app_id', 'customer_id']).execute();
  await db.schema.createIndex('visitors_customer_idx').on('visitors').columns(['app_id', 'customer_id']).execute();
}
