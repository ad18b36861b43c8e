import { type RowOf, preparedQuery, type DatabaseHandle } from '../../db/index.ts';

/** The project and the caller's member record in it (null columns when not a member). */
const membershipRow = preparedQuery('membership', ({ db }, appId: string, userId: number) =>
  db
    .selectFrom('apps')
    .leftJoin('members', (j) => j.onRef('members.app_id', '=', 'apps.id').on('members.user_id', '=', userId))
    .selectAll('apps')
    .select([
      'members.id as m_id',
      'members.status as m_status',
      'members.role as m_role',
      'members.conference_id as m_conference_id',
      'members.post_roles as m_post_roles',
      'members.create_time as m_create_time',
      'members.edit_time as m_edit_time',
      'members.accepted_at as m_accepted_at',
    ])
    .where('apps.id', '=', appId),
);
export type MembershipRow = RowOf<typeof membershipRow>;

export const accessRepository = {
  /**
   * The project and the caller's member record in it, or null when there is no such project.
   * Every request of a project-scoped endpoint asks and members change rarely, so the rows are
   * kept in memory until a commit changes users, tokens, projects or members.
   */
  membership(database: DatabaseHandle, appId: string, userId: number): Promise<MembershipRow | null> {
    return database
      .cache<string, MembershipRow | null>('memberships', 'access')
      .get(`${userId}:${appId}`, async () => (await database.reader.first(membershipRow, appId, userId)) ?? null);
  },
};
