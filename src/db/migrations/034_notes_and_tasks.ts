import { type Kysely, sql } from 'kysely';

/**
 * Notes and tasks on customers (docs/tasks.md, ADR 0037), owned by the tasks module.
 *
 * `notes`: a member's Markdown note on a customer; `mentions` is the JSON array of the platform user
 * ids its @-mentions resolved to; `call_id` names the Call record a note was logged with.
 *
 * `tasks`: something to do about a customer by a due time, assigned to a member; `status` open or
 * done. `due_signalled_at` is when the due scan announced the task (its `due` event), null until
 * then; rescheduling clears it, so a task is announced once per due time. The partial index is the
 * scan's queue: open tasks not yet announced, by due time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table notes (
    id text primary key,
    app_id text not null,
    customer_id text not null,
    author_id integer not null,
    content text not null,
    mentions text not null,
    call_id text,
    created_at bigint not null,
    updated_at bigint not null
  )`.execute(db);
  await sql`create index notes_customer_idx on notes (app_id, customer_id, created_at, id)`.execute(db);

  await sql`create table tasks (
    id text primary key,
    app_id text not null,
    customer_id text not null,
    title text not null,
    notes text,
    kind text not null,
    due_at bigint not null,
    assignee_id integer not null,
    creator_id integer not null,
    status text not null,
    completed_at bigint,
    completed_by integer,
    due_signalled_at bigint,
    created_at bigint not null,
    updated_at bigint not null
  )`.execute(db);
  await sql`create index tasks_project_idx on tasks (app_id, status, due_at, id)`.execute(db);
  await sql`create index tasks_assignee_idx on tasks (app_id, assignee_id, status, due_at, id)`.execute(db);
  await sql`create index tasks_customer_idx on tasks (app_id, customer_id, status, due_at, id)`.execute(db);
  await sql`create index tasks_due_scan_idx on tasks (due_at) where status = 'open' and due_signalled_at is null`.execute(db);
}
