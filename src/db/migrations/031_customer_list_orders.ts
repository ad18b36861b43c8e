import { type Kysely, sql } from 'kysely';

/**
 * The customer list's orders and activity filter (docs/customers.md, "Order, total and activity").
 *
 * - `customers.last_activity_at`: the time (epoch ms) of the customer's latest behaviour record that
 *   is activity (every action but the bookkeeping `create` and `customer_merged`), never later than
 *   when the record was stored; 0 for none. Kept at write time by ingestion's write path; filled here
 *   from the stored records.
 * - Indexes for each order the list offers, in the shape of the list's index of 002
 *   (`customers_app_list_idx`, `customers_owner_list_idx`): project (and owner), status, the order's
 *   key, id. The name's key is `lower(coalesce(name, ''))`, so that a customer without a name has a
 *   place in the order and a page anchor can name it.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await sql`alter table customers add column last_activity_at bigint not null default 0`.execute(db);
  const capped = dialect === 'postgres' ? sql`least(b.when_at, b.created_at)` : sql`min(b.when_at, b.created_at)`;
  await sql`update customers set last_activity_at = coalesce((
      select max(${capped}) from behaviour_logs b
      where b.app_id = customers.app_id and b.customer_id = customers.id and b.action not in ('create', 'customer_merged')
    ), 0)`.execute(db);
  const nameKey = dialect === 'postgres' ? `(lower(coalesce(name, '')))` : `lower(coalesce(name, ''))`;
  for (const [name, columns] of [
    ['customers_app_created_idx', 'app_id, status, created_at, id'],
    ['customers_owner_created_idx', 'app_id, owner_id, status, created_at, id'],
    ['customers_app_name_idx', `app_id, status, ${nameKey}, id`],
    ['customers_owner_name_idx', `app_id, owner_id, status, ${nameKey}, id`],
    ['customers_app_activity_idx', 'app_id, status, last_activity_at, id'],
    ['customers_owner_activity_idx', 'app_id, owner_id, status, last_activity_at, id'],
  ] as const) {
    await sql.raw(`create index ${name} on customers (${columns})`).execute(db);
  }
}
