import { type Kysely, sql } from 'kysely';

/**
 * Anonymous site history expires (docs/site-tracking.md): the sweep finds an anonymous visitor's
 * records and ended visits by their time, in every project.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index site_events_when_idx on site_events (when_at)`.execute(db);
  await sql`create index site_visits_last_idx on site_visits (last_at) where ended_at is not null`.execute(db);
}
