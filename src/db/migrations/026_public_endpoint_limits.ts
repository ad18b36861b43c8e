import { type Kysely, sql } from 'kysely';

/**
 * What strangers can make a project store, and how often they may guess a link's passcode
 * (docs/site-tracking.md, docs/links.md):
 * - `site_anonymous_counts`: anonymous site records stored per project and day (the day in the
 *   server's TIME_ZONE, `yyyy-MM-dd`), counted in the transaction that stores them, so every process
 *   and server shares one count against SITE_ANONYMOUS_DAILY_CAP;
 * - `link_passcode_failures`: a link's wrong passcodes in its current window, and until when its
 *   passcode is refused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table site_anonymous_counts (
    app_id text not null,
    day text not null,
    records integer not null,
    primary key (app_id, day)
  )`.execute(db);
  await sql`create table link_passcode_failures (
    app_id text not null,
    link_id text not null,
    window_start bigint not null,
    failures integer not null,
    locked_until bigint,
    primary key (app_id, link_id)
  )`.execute(db);
}
