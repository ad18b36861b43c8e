import { type Kysely, sql } from 'kysely';

/**
 * Every table of a project's data carries `app_id` (ADR 0018), so that every statement can name the
 * project it works in and the data could be distributed by project. Four tables had it only
 * through their parent: the overview's daily rollups and all-time totals (per customer), the
 * page-turn durations of a link view log, and the deliveries of a webhook. Each gets `app_id`,
 * filled from its parent, NOT NULL.
 *
 * The rollups', totals' and durations' primary keys lead with `app_id`: a distributed table's
 * unique keys must hold the distribution column, and every read of them names the project and the
 * parent (an equality each), so the same index range is read as before. Their upserts now name
 * the new key. Rows whose parent no longer exists belong to no project and no read reaches them:
 * they are not carried over.
 *
 * SQLite cannot change a primary key or make a new column NOT NULL in place: those tables are
 * rebuilt (new table, rows copied with their parent's project, old table dropped, new one renamed),
 * keeping the deliveries' AUTOINCREMENT high-water mark. PostgreSQL changes them in place.
 *
 * The indexes the hot reads of behaviour records and link view logs walk lead with `app_id` too,
 * now that those reads name the project: otherwise the project condition would be checked on the
 * table's rows, one row read for every index entry a page skips or a count passes (a behaviour
 * page at offset 50,000 took 90–200 ms instead of 4–9 on SQLite), and the view counts would lose
 * their covering indexes. Same names, same columns after `app_id`.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await (dialect === 'postgres' ? postgresTables(db) : sqliteTables(db));
  for (const [name, table, columns] of [
    ['behaviour_customer_when_idx', 'behaviour_logs', 'app_id, customer_id, when_at, id'],
    ['link_view_logs_list_idx', 'link_view_logs', 'app_id, link_id, view_time, id'],
    ['link_view_logs_seq_idx', 'link_view_logs', 'app_id, link_id, seq, viewer_id'],
    ['link_view_logs_viewer_idx', 'link_view_logs', 'app_id, link_id, viewer_id'],
  ] as const) {
    await sql.raw(`drop index ${name}`).execute(db);
    await sql.raw(`create index ${name} on ${table} (${columns})`).execute(db);
  }
}

async function postgresTables(db: Kysely<unknown>): Promise<void> {
  await sql`alter table behaviour_rollups add column app_id text`.execute(db);
  await sql`update behaviour_rollups r set app_id = c.app_id from customers c where c.id = r.customer_id`.execute(db);
  await sql`delete from behaviour_rollups where app_id is null`.execute(db);
  await sql`alter table behaviour_rollups alter column app_id set not null`.execute(db);
  await sql`alter table behaviour_rollups drop constraint behaviour_rollups_pk`.execute(db);
  await sql`alter table behaviour_rollups add constraint behaviour_rollups_pk primary key (app_id, customer_id, day, kind, key)`.execute(
    db,
  );

  await sql`alter table behaviour_totals add column app_id text`.execute(db);
  await sql`update behaviour_totals t set app_id = c.app_id from customers c where c.id = t.customer_id`.execute(db);
  await sql`delete from behaviour_totals where app_id is null`.execute(db);
  await sql`alter table behaviour_totals alter column app_id set not null`.execute(db);
  await sql`alter table behaviour_totals drop constraint behaviour_totals_pk`.execute(db);
  await sql`alter table behaviour_totals add constraint behaviour_totals_pk primary key (app_id, customer_id, kind, key)`.execute(db);

  await sql`alter table link_view_durations add column app_id text`.execute(db);
  await sql`update link_view_durations d set app_id = v.app_id from link_view_logs v where v.id = d.link_view_log_id`.execute(db);
  await sql`delete from link_view_durations where app_id is null`.execute(db);
  await sql`alter table link_view_durations alter column app_id set not null`.execute(db);
  await sql`alter table link_view_durations drop constraint link_view_durations_pk`.execute(db);
  await sql`alter table link_view_durations add constraint link_view_durations_pk primary key (app_id, link_view_log_id, position)`.execute(
    db,
  );

  // A delivery's webhook always exists (a foreign key).
  await sql`alter table webhook_deliveries add column app_id text`.execute(db);
  await sql`update webhook_deliveries d set app_id = w.app_id from webhooks w where w.id = d.webhook_id`.execute(db);
  await sql`alter table webhook_deliveries alter column app_id set not null`.execute(db);
}

async function sqliteTables(db: Kysely<unknown>): Promise<void> {
  await sql`create table behaviour_rollups_013 (
    customer_id text not null,
    kind text not null,
    day text not null,
    key text not null,
    count bigint not null,
    app_id text not null,
    constraint behaviour_rollups_pk primary key (app_id, customer_id, day, kind, key)
  )`.execute(db);
  await sql`insert into behaviour_rollups_013 (customer_id, kind, day, key, count, app_id)
    select r.customer_id, r.kind, r.day, r.key, r.count, c.app_id from behaviour_rollups r join customers c on c.id = r.customer_id`.execute(
    db,
  );
  await sql`drop table behaviour_rollups`.execute(db);
  await sql`alter table behaviour_rollups_013 rename to behaviour_rollups`.execute(db);

  await sql`create table behaviour_totals_013 (
    customer_id text not null,
    kind text not null,
    key text not null,
    count bigint not null,
    app_id text not null,
    constraint behaviour_totals_pk primary key (app_id, customer_id, kind, key)
  )`.execute(db);
  await sql`insert into behaviour_totals_013 (customer_id, kind, key, count, app_id)
    select t.customer_id, t.kind, t.key, t.count, c.app_id from behaviour_totals t join customers c on c.id = t.customer_id`.execute(db);
  await sql`drop table behaviour_totals`.execute(db);
  await sql`alter table behaviour_totals_013 rename to behaviour_totals`.execute(db);

  await sql`create table link_view_durations_013 (
    link_view_log_id text not null,
    position integer not null,
    id text not null,
    file_id text,
    file_name text,
    file_url text,
    page_index text,
    duration text,
    sort_index integer,
    created_at bigint,
    ended_at bigint,
    total bigint,
    app_id text not null,
    constraint link_view_durations_pk primary key (app_id, link_view_log_id, position)
  )`.execute(db);
  await sql`insert into link_view_durations_013
      (link_view_log_id, position, id, file_id, file_name, file_url, page_index, duration, sort_index, created_at, ended_at, total, app_id)
    select d.link_view_log_id, d.position, d.id, d.file_id, d.file_name, d.file_url, d.page_index, d.duration, d.sort_index,
      d.created_at, d.ended_at, d.total, v.app_id
    from link_view_durations d join link_view_logs v on v.id = d.link_view_log_id`.execute(db);
  await sql`drop table link_view_durations`.execute(db);
  await sql`alter table link_view_durations_013 rename to link_view_durations`.execute(db);

  // AUTOINCREMENT never hands out an id again, even a deleted (pruned) delivery's: the new table
  // takes over the old one's high-water mark.
  const { rows: sequence } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'webhook_deliveries'`.execute(db);
  await sql`create table webhook_deliveries_013 (
    id integer primary key autoincrement,
    webhook_id text not null references webhooks (id),
    event_ids text not null,
    first_seq bigint,
    last_seq bigint,
    status text not null,
    attempts integer not null,
    next_attempt_at bigint not null,
    last_status_code integer,
    last_error text,
    created_at bigint not null,
    delivered_at bigint,
    app_id text not null
  )`.execute(db);
  await sql`insert into webhook_deliveries_013
      (id, webhook_id, event_ids, first_seq, last_seq, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at, app_id)
    select d.id, d.webhook_id, d.event_ids, d.first_seq, d.last_seq, d.status, d.attempts, d.next_attempt_at, d.last_status_code,
      d.last_error, d.created_at, d.delivered_at, w.app_id
    from webhook_deliveries d join webhooks w on w.id = d.webhook_id`.execute(db);
  await sql`drop table webhook_deliveries`.execute(db);
  await sql`alter table webhook_deliveries_013 rename to webhook_deliveries`.execute(db);
  await sql`create index webhook_deliveries_hook_idx on webhook_deliveries (webhook_id, status, id)`.execute(db);
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (status, next_attempt_at)`.execute(db);
  const highWater = sequence[0]?.seq;
  if (highWater !== undefined) {
    await sql`delete from sqlite_sequence where name = 'webhook_deliveries'`.execute(db);
    await sql`insert into sqlite_sequence (name, seq) values ('webhook_deliveries', ${highWater})`.execute(db);
  }
}
