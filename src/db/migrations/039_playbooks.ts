import { type Kysely, sql } from 'kysely';

/**
 * Playbooks (docs/playbooks.md, ADR 0041), owned by the playbooks module.
 *
 * `playbooks`: a project's rule "when a customer does this (the trigger), if they are such (the
 * filters), do that (the actions)", with how often per customer (`limit_kind`: `once`, `per_period`
 * with `limit_days`, `every_time`); `trigger_def`, `filters` and `actions` are JSON as the API takes them;
 * `secret` signs its webhook calls; `deleted_at`: archived (its runs stay readable).
 *
 * `playbook_hits`: each time a customer did the trigger, once per `key` (a view of a deck, a record):
 * what "twice within 3 days" counts. `playbook_runs`: each time a playbook acted on a customer, once
 * per `run_key` (unique in the project: the playbook and the customer for `once`, the hit otherwise),
 * with the record that triggered it (`event_id`, `recorded_at`: when it was recorded), what each action
 * did (`outcome`, JSON) and its webhook call's delivery (`webhook_status` `pending`, `sent`, `dead`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table playbooks (
    id text primary key,
    app_id text not null,
    name text not null,
    enabled integer not null,
    trigger_def text not null,
    filters text not null,
    actions text not null,
    limit_kind text not null,
    limit_days integer,
    secret text not null,
    created_by integer not null,
    created_at bigint not null,
    updated_at bigint not null,
    deleted_at bigint
  )`.execute(db);
  await sql`create index playbooks_app_idx on playbooks (app_id, created_at) where deleted_at is null`.execute(db);
  await sql`create index playbooks_enabled_idx on playbooks (enabled, app_id) where deleted_at is null`.execute(db);

  await sql`create table playbook_hits (
    app_id text not null,
    playbook_id text not null,
    key text not null,
    customer_id text not null,
    at bigint not null,
    primary key (app_id, playbook_id, key)
  )`.execute(db);
  await sql`create index playbook_hits_customer_idx on playbook_hits (app_id, playbook_id, customer_id, at)`.execute(db);

  await sql`create table playbook_runs (
    id text primary key,
    app_id text not null,
    playbook_id text not null,
    customer_id text not null,
    run_key text not null,
    hit_key text not null,
    event_id text not null,
    recorded_at bigint not null,
    outcome text not null,
    webhook_status text,
    webhook_attempts integer not null,
    webhook_next_at bigint,
    webhook_error text,
    created_at bigint not null
  )`.execute(db);
  await sql`create unique index playbook_runs_key_uq on playbook_runs (app_id, run_key)`.execute(db);
  await sql`create index playbook_runs_list_idx on playbook_runs (app_id, playbook_id, created_at)`.execute(db);
  await sql`create index playbook_runs_customer_idx on playbook_runs (app_id, playbook_id, customer_id, created_at)`.execute(db);
  await sql`create index playbook_runs_webhook_idx on playbook_runs (webhook_next_at) where webhook_status = 'pending'`.execute(db);
}
