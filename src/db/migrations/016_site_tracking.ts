import { type Kysely, sql } from 'kysely';

/**
 * Site tracking (docs/site-tracking.md): each project's public site key, the secret a site's server
 * signs customer ids with, and the origins its snippet may send from; the site visitors tied to a
 * customer; the visits the snippet records (for the visit's end, written when it falls silent); and
 * what anonymous visitors did, kept until they are joined to a customer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table apps add column site_key text`.execute(db);
  await sql`alter table apps add column site_secret text`.execute(db);
  // Comma-separated origins (scheme://host[:port]); null: none, the collect endpoint refuses every origin.
  await sql`alter table apps add column site_origins text`.execute(db);
  // Existing projects get their key and secret now; new ones when they are created.
  // Web Crypto (a global of Node): a migration imports nothing at run time but kysely.
  const random = (bytes: number) => Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url');
  const apps = await sql<{ id: string }>`select id from apps`.execute(db);
  for (const { id } of apps.rows) {
    const key = random(16);
    const secret = random(32);
    await sql`update apps set site_key = ${key}, site_secret = ${secret} where id = ${id}`.execute(db);
  }
  await sql`create unique index apps_site_key_idx on apps (site_key)`.execute(db);

  // A site visitor (the snippet's first-party id) tied to a customer of the project.
  await sql`create table site_visitors (
    app_id text not null references apps (id),
    id text not null,
    customer_id text not null,
    verified integer not null,
    via text not null,
    created_at bigint not null,
    updated_at bigint not null,
    primary key (app_id, id)
  )`.execute(db);

  // A visit (a session of the snippet): its start, its last sign of life, and when its end was recorded.
  await sql`create table site_visits (
    app_id text not null references apps (id),
    visitor_id text not null,
    id text not null,
    started_at bigint not null,
    last_at bigint not null,
    ended_at bigint,
    site text,
    referrer text,
    post_id text,
    primary key (app_id, visitor_id, id)
  )`.execute(db);
  // Visits still open, for the sweep that records the end of silent ones.
  await sql`create index site_visits_open_idx on site_visits (last_at) where ended_at is null`.execute(db);

  // What an anonymous visitor did: a behaviour record's body without its customer, until joined.
  await sql`create table site_events (
    app_id text not null references apps (id),
    id text not null,
    visitor_id text not null,
    when_at bigint not null,
    body text not null,
    created_at bigint not null,
    primary key (app_id, id)
  )`.execute(db);
  await sql`create index site_events_visitor_idx on site_events (app_id, visitor_id, when_at)`.execute(db);
}
