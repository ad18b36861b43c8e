import { type Kysely, sql } from 'kysely';

/**
 * The site page's "last event received" check (docs/site-tracking.md): a project's latest visit read
 * from an index, not a scan of its visits. And a project's logo (docs/projects.md): the image the
 * public viewer shows beside the project's name and as its icon. The bytes are in the file storage
 * under the logo's token; the token (random, new with each upload) is in the logo's public address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index site_visits_latest_idx on site_visits (app_id, last_at)`.execute(db);
  await sql`create table project_logos (
    app_id text not null primary key references apps (id),
    token text not null,
    content_type text not null,
    size integer not null,
    updated_at bigint not null
  )`.execute(db);
}
