import { type Kysely, sql } from 'kysely';

/**
 * Bulk actions on customers as jobs (docs/customers.md "Bulk actions", ADR 0033): the action and
 * its options, the frozen list of customer ids it works through (`customer_ids`, JSON, in order),
 * how many are done (`processed`: a restarted server resumes after them), the counts and a summary
 * of the failures. A batch's changes and the job's progress commit in one transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table customer_bulk_jobs (
    id text primary key,
    app_id text not null,
    created_by bigint not null,
    action text not null,
    status text not null,
    options text not null,
    customer_ids text not null,
    total bigint not null,
    processed bigint not null,
    succeeded bigint not null,
    failed bigint not null,
    failures text not null,
    result_path text,
    error text,
    lease_until bigint,
    created_at bigint not null,
    updated_at bigint not null
  )`.execute(db);
  await sql`create index customer_bulk_jobs_app on customer_bulk_jobs (app_id, status, created_at)`.execute(db);
  await sql`create index customer_bulk_jobs_waiting on customer_bulk_jobs (status, lease_until)`.execute(db);
}
