import { type RowOf, preparedQuery } from '../../db/prepared.ts';

/** The project and the caller's member record in it (null columns when not a member). */
export const membershipRow = preparedQuery('membership', ({ db }, appId: string, userId: number) =>
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
    ])
    .where('apps.id', '=', appId),
);
export type MembershipRow = RowOf<typeof membershipRow>;
