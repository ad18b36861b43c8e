import type { Kysely } from 'kysely';
import type { DialectFeatures } from '../dialect.ts';

/**
 * Commits to the tables behind the in-process token and membership caches (issue 7) advance every
 * process's change epoch: on PostgreSQL through statement triggers that NOTIFY; on SQLite nothing
 * is needed (`PRAGMA data_version`).
 */
export async function up(db: Kysely<unknown>, f: DialectFeatures): Promise<void> {
  await f.createChangeNotifications(db, ['users', 'access_tokens', 'apps', 'members']);
}
