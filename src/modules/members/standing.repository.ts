/**
 * The read model of a user's standing across projects, for statements over records addressed to
 * one user in any project (the alerts module's inbox): the user's active memberships in live projects
 * as a subquery (`app_id`, `role`, the project's `app_name`), which the caller joins to its rows by
 * `app_id`, so a removed member's, or a deleted project's, records fall out in the caller's one
 * statement. Reached through the members service (`memberStandingReadModel`); its type is
 * `MemberStandingReadModel` of mapper.ts.
 */
import type { Database } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import type { ProjectReadModel } from '../projects/mapper.ts';

type Db = Kysely<Database>;

export function memberStandingReads(projects: ProjectReadModel) {
  return {
    activeOf(db: Db, userId: number) {
      return projects
        .liveSummaries(db)
        .innerJoin('members', 'members.app_id', projects.key)
        .select(['members.app_id as app_id', 'members.role as role'])
        .where('members.user_id', '=', userId)
        .where('members.status', '=', 0);
    },
  };
}
