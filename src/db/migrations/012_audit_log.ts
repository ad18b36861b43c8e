import { type Kysely, sql } from 'kysely';

/**
 * Who did what in a project: member and role changes, customer transfers, project edits, webhook
 * changes. Written in the transaction of the change itself; read newest first by Master and Admin.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table audit_log (
    id text primary key,
    app_id text not null,
    actor_id bigint,
    action text not null,
    target_type text not null,
    target_id text not null,
    detail text,
    created_at bigint not null
  )`.execute(db);
  await sql`create index audit_log_app_time on audit_log (app_id, created_at, id)`.execute(db);
}
