import { type Kysely, sql } from 'kysely';

/**
 * When a user was last seen (member `onlineStatus`) moves out of `users` into its own table. Every
 * write to `users` advances the `access` change epoch and empties the token and membership caches
 * of every process (migration 007); the once-a-minute presence touch of each active user did so
 * too, ~(active users ÷ 60) times a second. `user_presence` belongs to no cache topic.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_presence')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into user_presence (user_id, last_seen_at) select id, last_seen_at from users where last_seen_at is not null`.execute(
    db,
  );
  await db.schema.alterTable('users').dropColumn('last_seen_at').execute();
}
