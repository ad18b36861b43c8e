import { type Kysely, sql } from 'kysely';

/**
 * E-mail campaigns sent from Rapport (docs/campaigns.md): a campaign (its Post record in `posts` carries
 * the interface's counters), the link targets a click may go to, the durable per-recipient queue the
 * sending workers claim rows from (a state per recipient: queued, sending, sent, failed, unknown,
 * suppressed, cancelled), and the addresses a project may no longer mail (unsubscribed, bounced),
 * kept by normalised address so that they survive merges and imports.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table campaigns (
    id text primary key,
    app_id text not null references apps (id),
    owner_id integer not null,
    title text not null,
    html text not null,
    status text not null,
    send_at bigint not null,
    material_link_id text,
    recipient_count integer not null,
    created_at bigint not null,
    updated_at bigint not null,
    finished_at bigint
  )`.execute(db);
  // The workers' look-up of campaigns due to send.
  await sql`create index campaigns_due_idx on campaigns (status, send_at)`.execute(db);
  await sql`create index campaigns_app_idx on campaigns (app_id, created_at)`.execute(db);

  // The targets a campaign's rewritten links may redirect to, by their position in the mail.
  await sql`create table campaign_links (
    app_id text not null references apps (id),
    campaign_id text not null,
    position integer not null,
    url text not null,
    primary key (campaign_id, position)
  )`.execute(db);

  await sql`create table campaign_recipients (
    id text primary key,
    app_id text not null references apps (id),
    campaign_id text not null,
    customer_id text not null,
    email text not null,
    email_norm text not null,
    fields text not null,
    state text not null,
    claimed_by text,
    claimed_at bigint,
    sent_at bigint,
    error text,
    opens integer not null default 0,
    machine_opens integer not null default 0,
    clicks integer not null default 0,
    returns integer not null default 0,
    created_at bigint not null
  )`.execute(db);
  // Claiming the next queued recipients of a campaign, and counting a campaign's states.
  await sql`create index campaign_recipients_state_idx on campaign_recipients (campaign_id, state, id)`.execute(db);
  // Recipients left in `sending` by a process that stopped.
  await sql`create index campaign_recipients_sending_idx on campaign_recipients (claimed_at) where state = 'sending'`.execute(db);

  await sql`create table mail_suppressions (
    app_id text not null references apps (id),
    email_norm text not null,
    reason text not null,
    detail text,
    created_at bigint not null,
    primary key (app_id, email_norm)
  )`.execute(db);
}
