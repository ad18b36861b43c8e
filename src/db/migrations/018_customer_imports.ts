import { type Kysely, sql } from 'kysely';

/**
 * Customer imports as jobs (docs/data-operations.md): the job with its options, counters and the
 * number of data rows already done (`processed`: a restarted server resumes after them), and the
 * rows that failed with their reason (problems.csv); and the project setting that lets Sales members
 * export (`apps.sales_export`). A batch's customers, the job's counters and the
 * batch's problems commit in one transaction, so a crash repeats no row and loses none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table customer_imports (
    id text primary key,
    app_id text not null,
    created_by bigint,
    owner_id bigint not null,
    status text not null,
    format text not null,
    file_name text not null,
    file_path text not null,
    options text not null,
    total bigint not null,
    processed bigint not null,
    created bigint not null,
    updated bigint not null,
    skipped bigint not null,
    failed bigint not null,
    error text,
    lease_until bigint,
    created_at bigint not null,
    updated_at bigint not null
  )`.execute(db);
  await sql`create index customer_imports_app on customer_imports (app_id, created_at, id)`.execute(db);
  await sql`create index customer_imports_waiting on customer_imports (status, lease_until)`.execute(db);
  await sql`create table customer_import_problems (
    app_id text not null,
    import_id text not null,
    row_number bigint not null,
    cells text not null,
    reason text not null,
    primary key (app_id, import_id, row_number)
  )`.execute(db);
  // A project setting: whether Sales members may export their own customers (Master and Admin always may).
  await sql`alter table apps add column sales_export integer not null default 1`.execute(db);
}
