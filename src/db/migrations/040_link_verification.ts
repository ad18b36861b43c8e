import { type Kysely, sql } from 'kysely';

/**
 * Knowing who reads a shared link (docs/links.md, ADR 0042), owned by the links module.
 *
 * - `links.email_verify`: 1, the e-mail gate mails a one-time code to the address it is given and
 *   opens on the right code. `links.allow_list`, `links.deny_list`: JSON arrays of the addresses and
 *   domains the gate lets through or refuses (null: none). `links.agreement`: the text the reader
 *   accepts before the document (null: none); `links.agreement_version`: 1 for its first text, one
 *   more for each change.
 * - `visitors.verified`: 1, the visitor was tied to its customer by an address they proved they
 *   receive mail at; an unverified tie never replaces it.
 * - `link_email_codes`: the code of one address (its canonical form) on one link: its hash, when it
 *   expires and when it was sent (a new one waits a minute), the wrong codes in the window that
 *   started with the first (`window_start`, `failures`) and the lock they started (`locked_until`).
 * - `link_agreement_acceptances`: each acceptance of a link's agreement: its version, the text's
 *   hash, who (the gate's address and name, the visitor), when, from where (the client address as
 *   stored, the user agent).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table links add column email_verify integer not null default 0`.execute(db);
  await sql`alter table links add column allow_list text`.execute(db);
  await sql`alter table links add column deny_list text`.execute(db);
  await sql`alter table links add column agreement text`.execute(db);
  await sql`alter table links add column agreement_version integer not null default 0`.execute(db);
  await sql`alter table visitors add column verified integer not null default 0`.execute(db);

  await sql`create table link_email_codes (
    app_id text not null,
    link_id text not null,
    address text not null,
    code_hash text,
    expires_at bigint,
    sent_at bigint not null,
    window_start bigint,
    failures integer not null default 0,
    locked_until bigint,
    primary key (app_id, link_id, address)
  )`.execute(db);
  await sql`create index link_email_codes_sent_idx on link_email_codes (app_id, link_id, sent_at)`.execute(db);

  await sql`create table link_agreement_acceptances (
    id text primary key,
    app_id text not null,
    link_id text not null,
    version integer not null,
    text_hash text not null,
    email text,
    name text,
    visitor_id text not null,
    accepted_at bigint not null,
    ip text,
    user_agent text
  )`.execute(db);
  await sql`create index link_agreement_acceptances_link_idx on link_agreement_acceptances (app_id, link_id, accepted_at, id)`.execute(db);
}
