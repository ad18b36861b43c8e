/**
 * The read model campaigns exports to the statements that count what a module's mails did (the
 * sequences' funnel): a project's recipient rows with their human opens and clicks, a subquery the
 * caller joins its rows to by `id` (a recipient row's id) and the project, in one statement. Reached
 * through the campaigns service (`mailEngagementReadModel`).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';

export const mailEngagementReadModel = {
  /** The project's recipient rows: `id`, `app_id`, `opens` (human opens), `clicks`. */
  recipients(db: Kysely<Database>, appId: string) {
    return db
      .selectFrom('campaign_recipients as mr')
      .select(['mr.id', 'mr.app_id', 'mr.opens', 'mr.clicks'])
      .where('mr.app_id', '=', appId);
  },
};
