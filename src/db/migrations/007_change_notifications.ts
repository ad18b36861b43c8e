import type { Kysely } from 'kysely';
import { CHANGE_TOPICS } from '../change-epoch.ts';
import type { DialectFeatures } from '../dialect.ts';

/**
 * Commits to the tables behind the in-process caches (issue 7: tokens and memberships, customer
 * list anchors) advance every process's change epoch of their topic: on SQLite through triggers
 * that count per topic, on PostgreSQL through statement triggers that NOTIFY the topic.
 */
export async function up(db: Kysely<unknown>, f: DialectFeatures): Promise<void> {
  await f.createChangeNotifications(db, CHANGE_TOPICS);
}
