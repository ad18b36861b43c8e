import { type Kysely, sql } from 'kysely';

/**
 * A member added by someone else is pending until the user accepts the membership from their own
 * account; until then the member list masks the user's phone number and e-mail. `accepted_at` is
 * when the user accepted (null: pending). Memberships that exist when this runs predate the rule
 * and count as accepted from when they were made.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table members add column accepted_at bigint`.execute(db);
  await sql`update members set accepted_at = create_time`.execute(db);
}
