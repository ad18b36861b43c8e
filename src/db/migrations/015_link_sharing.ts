import { type Kysely, sql } from 'kysely';

/**
 * Links made and shared from Rapport itself (docs/links.md): what a link made through the API adds to
 * the ingested shape (expiry, passcode, download, e-mail gate, embedding, the form's fields, disabled
 * links), the state of a view the public viewer records beat by beat (its visitor, its customer, the
 * last beacon's sequence number and time, when it was closed), the visitors a form or an e-mail gate
 * tied to a customer, and the server's own secrets (the key that signs view tokens), kept in the
 * database so that every process and every server shares them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Links: columns with defaults, so ingested links (and those of earlier releases) are active,
  // without expiry, passcode or gate.
  await sql`alter table links add column status integer not null default 1`.execute(db);
  await sql`alter table links add column expires_at bigint`.execute(db);
  await sql`alter table links add column passcode_hash text`.execute(db);
  await sql`alter table links add column allow_download integer not null default 0`.execute(db);
  await sql`alter table links add column email_gate integer not null default 0`.execute(db);
  await sql`alter table links add column embed integer not null default 0`.execute(db);
  // JSON array text of the form's fields (name, email, phone, …); null: the default fields.
  await sql`alter table links add column form_fields text`.execute(db);
  await sql`alter table links add column disabled_at bigint`.execute(db);

  // View logs the viewer records: who (the visitor cookie; the customer, once known), and the view's
  // beacon state. Ingested view logs leave them empty (beacon_seq 0).
  await sql`alter table link_view_logs add column visitor_id text`.execute(db);
  await sql`alter table link_view_logs add column customer_id text`.execute(db);
  await sql`alter table link_view_logs add column beacon_seq integer not null default 0`.execute(db);
  await sql`alter table link_view_logs add column beacon_at bigint`.execute(db);
  await sql`alter table link_view_logs add column closed_at bigint`.execute(db);
  await sql`alter table link_view_logs add column left_at bigint`.execute(db);
  // A visitor's views in a project: a reload continues the last one; a form joins them to a customer.
  await sql`create index link_view_logs_visitor_idx on link_view_logs (app_id, visitor_id, view_time)`.execute(db);
  // Views still open, for the sweep that closes silent ones.
  await sql`create index link_view_logs_open_idx on link_view_logs (beacon_at) where closed_at is null and beacon_at is not null`.execute(
    db,
  );

  // A visitor (the viewer's first-party cookie) a form or an e-mail gate tied to a customer of the project.
  await sql`create table visitors (
    app_id text not null references apps (id),
    id text not null,
    customer_id text not null,
    created_at bigint not null,
    updated_at bigint not null,
    primary key (app_id, id)
  )`.execute(db);

  // Secrets the server makes for itself once (the view-token key), shared by every process.
  await sql`create table server_secrets (
    name text primary key,
    value text not null,
    created_at bigint not null
  )`.execute(db);
}
