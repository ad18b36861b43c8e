import { type Kysely, sql } from 'kysely';

/**
 * Rotating a project's secret (docs/projects.md): the secret it replaced stays valid until a time, so
 * integrations can switch over without a gap.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table apps add column previous_secret text`.execute(db);
  await sql`alter table apps add column previous_secret_until bigint`.execute(db);
}
