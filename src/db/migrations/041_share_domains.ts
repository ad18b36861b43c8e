import { type Kysely, sql } from 'kysely';

/**
 * A project's own share domain (docs/projects.md, ADR 0043): the host name its links, campaign mail
 * tracking and site snippet are addressed at instead of PUBLIC_BASE_URL's, lower-case, IDN as
 * punycode, null for none. Two projects cannot claim one domain: the unique index (nulls are never
 * equal, so any number of projects have none) is what refuses the second claim, whatever the race.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table apps add column share_domain text`.execute(db);
  await sql`create unique index apps_share_domain_key on apps (share_domain)`.execute(db);
}
