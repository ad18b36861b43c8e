import { type Kysely, sql } from 'kysely';

/**
 * Erasure finds every row that names a customer by an index (docs/customers.md, "Erasure"): a
 * customer's site visitors, and their rows among a project's campaign recipients.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index site_visitors_customer_idx on site_visitors (app_id, customer_id)`.execute(db);
  await sql`create index campaign_recipients_customer_idx on campaign_recipients (app_id, customer_id)`.execute(db);
}
