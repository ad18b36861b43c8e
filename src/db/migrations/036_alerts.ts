import { type Kysely, sql } from 'kysely';

/**
 * Alerts where salespeople are (docs/alerts.md, ADR 0039), owned by the alerts module, and
 * notification channels as webhooks of a kind (owned by the webhooks module).
 *
 * `alert_settings`: a platform user's own preferences, whatever the project: the signals they want
 * (a comma list), the share of a deck read that counts, the inbox on or off, e-mail (`off`, `instant`,
 * `digest`), their IANA time zone and digest hour, their language; `next_digest_at` is when their next
 * digest is due (null unless e-mail is `digest`), the digest job's queue.
 *
 * `alert_project_settings`: a member's choices in one project: `scope` (`mine`, `all`, `none`) and,
 * optionally, signals and a threshold of their own for the project.
 *
 * `alert_signals`: each signal once (`key` unique in the project): what happened, about which
 * customer, about what (`subject`: a link, a task, a note), when. `alert_readings`: a directed
 * deck's reading in progress, from its open to its end (its last page record, its leave).
 *
 * `notifications`: a signal for one member: the inbox entry (`inbox` 1 to show it, `read_at`), and
 * the e-mail (`mail_status`: `none`, `queued` for an instant mail, `digest` for the next digest,
 * `sent`, `dead`, `dropped`), unique per signal and member.
 *
 * `webhooks` gains `purpose` (`events`: a webhook of the feed; `alerts`: a notification channel),
 * `kind` (`webhook`, `slack`, `wecom`, `dingtalk`, `feishu`) and `options` (a channel's signals,
 * threshold, language and name, JSON). `webhook_deliveries` gains `dedupe_key`: a channel's delivery of
 * a signal is made once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table alert_settings (
    user_id integer primary key,
    signals text not null,
    read_threshold integer not null,
    inbox integer not null,
    email text not null,
    time_zone text not null,
    digest_hour integer not null,
    locale text not null,
    next_digest_at bigint,
    updated_at bigint not null
  )`.execute(db);
  await sql`create index alert_settings_digest_idx on alert_settings (next_digest_at) where next_digest_at is not null`.execute(db);

  await sql`create table alert_project_settings (
    app_id text not null,
    user_id integer not null,
    scope text not null,
    signals text,
    read_threshold integer,
    updated_at bigint not null,
    primary key (app_id, user_id)
  )`.execute(db);
  await sql`create index alert_project_settings_scope_idx on alert_project_settings (app_id, scope, user_id)`.execute(db);

  await sql`create table alert_signals (
    id text primary key,
    app_id text not null,
    key text not null,
    signal text not null,
    customer_id text not null,
    subject text,
    suppressed integer not null,
    created_at bigint not null
  )`.execute(db);
  await sql`create unique index alert_signals_key_uq on alert_signals (app_id, key)`.execute(db);
  await sql`create index alert_signals_customer_idx on alert_signals (app_id, customer_id, signal, created_at)`.execute(db);
  await sql`create index alert_signals_age_idx on alert_signals (created_at)`.execute(db);

  await sql`create table alert_readings (
    app_id text not null,
    view_id text not null,
    link_id text not null,
    customer_id text not null,
    started_at bigint not null,
    last_page_at bigint not null,
    ended_at bigint,
    primary key (app_id, view_id)
  )`.execute(db);
  await sql`create index alert_readings_open_idx on alert_readings (last_page_at) where ended_at is null`.execute(db);
  await sql`create index alert_readings_customer_idx on alert_readings (app_id, customer_id)`.execute(db);

  await sql`create table notifications (
    id text primary key,
    app_id text not null,
    user_id integer not null,
    signal_id text not null,
    signal text not null,
    customer_id text not null,
    title text not null,
    body text not null,
    data text not null,
    inbox integer not null,
    read_at bigint,
    mail_status text not null,
    mail_attempts integer not null,
    mail_next_at bigint,
    mail_error text,
    mailed_at bigint,
    created_at bigint not null
  )`.execute(db);
  await sql`create unique index notifications_signal_uq on notifications (app_id, signal_id, user_id)`.execute(db);
  await sql`create index notifications_inbox_idx on notifications (user_id, created_at, id) where inbox = 1`.execute(db);
  await sql`create index notifications_unread_idx on notifications (user_id, created_at) where inbox = 1 and read_at is null`.execute(db);
  await sql`create index notifications_mail_idx on notifications (mail_next_at) where mail_status = 'queued'`.execute(db);
  await sql`create index notifications_digest_idx on notifications (user_id, created_at) where mail_status = 'digest'`.execute(db);
  await sql`create index notifications_customer_idx on notifications (app_id, customer_id)`.execute(db);
  await sql`create index notifications_age_idx on notifications (created_at)`.execute(db);

  await sql`alter table webhooks add column purpose text not null default 'events'`.execute(db);
  await sql`alter table webhooks add column kind text not null default 'webhook'`.execute(db);
  await sql`alter table webhooks add column options text`.execute(db);
  await sql`alter table webhook_deliveries add column dedupe_key text`.execute(db);
  await sql`create unique index webhook_deliveries_dedupe_uq on webhook_deliveries (app_id, webhook_id, dedupe_key)`.execute(db);
}
