import { type Kysely, sql } from 'kysely';

/**
 * newCount from counters instead of counting rows (ADR 0012). A customer's behaviour records are the
 * sum of its `action` totals (every record adds one to exactly one action); the owner's detail view
 * stamps that sum as `seen_behaviour_count`, and newCount is the difference. Before, newCount
 * counted the records created after the view through an index on (customer_id, created_at): one
 * index entry per unseen record on every list page (100,000 for a customer with that many new
 * records), and one more index entry written per ingested record. The index goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('customers')
    .addColumn('seen_behaviour_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // What the owner had seen: the records created up to the last detail view.
  await sql`update customers set seen_behaviour_count = (
      select count(*) from behaviour_logs b where b.customer_id = customers.id and b.created_at <= customers.detail_viewed_at)
    where detail_viewed_at is not null`.execute(db);
  await db.schema.dropIndex('behaviour_customer_created_idx').execute();
}
