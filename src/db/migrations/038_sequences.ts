import { type Kysely, sql } from 'kysely';

/**
 * Sequences (docs/sequences.md, ADR 0040), owned by the sequences module: a cadence of e-mail, call
 * and task steps each enrolled customer moves through until they answer.
 *
 * `sequence_settings`: a project's send settings (no row: the defaults): the time zone (IANA) of the
 * window when a customer's own is not known, the window's start and end (minutes of the day) and
 * days (ISO weekdays, a comma list), the daily cap of e-mail steps per sending member, the reply
 * address, and `inbound_token`, the secret of the inbound mail webhook (unique: the webhook finds the
 * project by it).
 *
 * `sequences`: a sequence and its current `version`; `deleted_at` archives it.
 *
 * `sequence_versions`: what a version says, immutable: its steps (JSON), the deck it is about
 * (`deck_link_id`) and the jump a reading of it makes (`jump`, JSON `{readShare, toStep}`). An edit
 * writes a new version; an enrolled customer keeps running the version they were enrolled in.
 *
 * `sequence_enrollments`: a customer in a sequence, once per sequence (unique), with the version they
 * run and the member who sends (`owner_id`). `state`: active, paused, finished, exited
 * (`exit_reason`). `step` is the index of the next step to run, `due_at` when the runner is to look
 * at it next (null unless active): enrolment and resume set it to their own time and the runner
 * places the step (its wait from `last_step_at`, the send window) before it runs it. `last_step_at`:
 * when the previous step ran (the enrolment's time before the first). `claimed_by`/`claimed_at`: the
 * runner's lease. `own_link_id`: the customer's directed share link of the deck. The partial index
 * on `due_at` is the runner's queue.
 *
 * `sequence_step_runs`: a step run for an enrolment, at most once (the primary key): its outcome
 * (`queued`, `sent`, `task`, `skipped`, with `detail` saying why), the mail (a campaigns recipient
 * row) or task it made, the sending member and their local `day` (yyyy-mm-dd, for the daily cap).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table sequence_settings (
    app_id text primary key,
    time_zone text not null,
    window_start integer not null,
    window_end integer not null,
    days text not null,
    daily_cap integer not null,
    reply_address text,
    inbound_token text not null,
    updated_by integer,
    updated_at bigint not null
  )`.execute(db);
  await sql`create unique index sequence_settings_inbound_uq on sequence_settings (inbound_token)`.execute(db);

  await sql`create table sequences (
    id text primary key,
    app_id text not null,
    name text not null,
    version integer not null,
    created_by integer not null,
    created_at bigint not null,
    updated_at bigint not null,
    deleted_at bigint
  )`.execute(db);
  await sql`create index sequences_app_idx on sequences (app_id, deleted_at, created_at, id)`.execute(db);

  await sql`create table sequence_versions (
    app_id text not null,
    sequence_id text not null,
    version integer not null,
    steps text not null,
    deck_link_id text,
    jump text,
    created_by integer not null,
    created_at bigint not null,
    primary key (app_id, sequence_id, version)
  )`.execute(db);
  await sql`create index sequence_versions_deck_idx on sequence_versions (app_id, deck_link_id) where deck_link_id is not null`.execute(db);

  await sql`create table sequence_enrollments (
    id text primary key,
    app_id text not null,
    sequence_id text not null,
    version integer not null,
    customer_id text not null,
    owner_id integer not null,
    state text not null,
    exit_reason text,
    step integer not null,
    due_at bigint,
    last_step_at bigint not null,
    claimed_by text,
    claimed_at bigint,
    own_link_id text,
    enrolled_by integer not null,
    enrolled_at bigint not null,
    updated_at bigint not null,
    ended_at bigint
  )`.execute(db);
  await sql`create unique index sequence_enrollments_customer_uq on sequence_enrollments (app_id, sequence_id, customer_id)`.execute(db);
  await sql`create index sequence_enrollments_state_idx on sequence_enrollments (app_id, sequence_id, state, enrolled_at, id)`.execute(db);
  await sql`create index sequence_enrollments_by_customer_idx on sequence_enrollments (app_id, customer_id)`.execute(db);
  await sql`create index sequence_enrollments_due_idx on sequence_enrollments (due_at) where state = 'active'`.execute(db);

  await sql`create table sequence_step_runs (
    app_id text not null,
    enrollment_id text not null,
    step integer not null,
    sequence_id text not null,
    version integer not null,
    customer_id text not null,
    kind text not null,
    outcome text not null,
    detail text,
    mail_id text,
    task_id text,
    owner_id integer not null,
    day text not null,
    created_at bigint not null,
    primary key (app_id, enrollment_id, step)
  )`.execute(db);
  await sql`create index sequence_step_runs_cap_idx on sequence_step_runs (app_id, owner_id, day)`.execute(db);
  await sql`create index sequence_step_runs_sequence_idx on sequence_step_runs (app_id, sequence_id, step)`.execute(db);
  await sql`create index sequence_step_runs_customer_idx on sequence_step_runs (app_id, customer_id)`.execute(db);
}
