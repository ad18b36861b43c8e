import {
  type MembersTable,
  type Database,
  type DatabaseHandle,
  type PreparedReader,
  containsInsensitive,
  crossProject,
  preparedQuery,
} from '../../db/index.ts';
import type { Kysely, Updateable } from 'kysely';
import type { UserReadModel } from '../accounts/mapper.ts';
import type { AppRow, ProjectReadModel } from '../projects/mapper.ts';
import type { MemberListRow, MemberRow, MembershipRow, UserMembershipRow } from './mapper.ts';

type Db = Kysely<Database>;

/** What a members list asks: one page of a project's active members, matching a keyword or not. */
export interface MemberListQuery {
  appId: string;
  keyword: string | undefined;
  offset: number;
  limit: number;
}

/**
 * The reads that join members to their projects, as one statement each over the projects module's
 * read model: the caller's membership (every project-scoped request asks, through access), a
 * creator's Sales count (the user object), a user's projects and memberships.
 */
export function projectMemberReads(projects: ProjectReadModel) {
  /** The project and the caller's member record in it (null columns when not a member). */
  const membershipRow = preparedQuery('membership', ({ db }, appId: string, userId: number) =>
    projects
      .byId(db, appId)
      .leftJoin('members', (j) => j.onRef('members.app_id', '=', projects.key).on('members.user_id', '=', userId))
      .select([
        'members.id as m_id',
        'members.status as m_status',
        'members.role as m_role',
        'members.conference_id as m_conference_id',
        'members.post_roles as m_post_roles',
        'members.create_time as m_create_time',
        'members.edit_time as m_edit_time',
        'members.accepted_at as m_accepted_at',
      ]),
  );
  /** Sales members across the live projects the user created (prepared: every user info answer has it). */
  const salesCountOf = preparedQuery('salesCountOf', ({ db }, userId: number) =>
    projects
      .liveCreatedBy(db, userId)
      .innerJoin('members', 'members.app_id', projects.key)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('members.status', '=', 0)
      .where('members.role', '=', 'Sales')
      .modifyEnd(crossProject('user-projects')),
  );

  return {
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

    async salesCount(reader: PreparedReader, userId: number): Promise<number> {
      const row = await reader.first(salesCountOf, userId);
      return Number(row?.n ?? 0);
    },

    /** Live projects the user is an active member of, newest first, with the user's role. */
    projectsOf(db: Db, userId: number): Promise<(AppRow & { role: string })[]> {
      return projects
        .liveNewestFirst(db)
        .innerJoin('members', 'members.app_id', projects.key)
        .select('members.role')
        .where('members.user_id', '=', userId)
        .where('members.status', '=', 0)
        .modifyEnd(crossProject('user-projects'))
        .execute();
    },

    /** The user's active memberships in live projects, newest first, with each project's name and creator; `pending` narrows them. */
    listForUser(db: Db, userId: number, pending: boolean | undefined): Promise<UserMembershipRow[]> {
      let q = projects
        .liveSummaries(db)
        .innerJoin('members', 'members.app_id', projects.key)
        .selectAll('members')
        .where('members.user_id', '=', userId)
        .where('members.status', '=', 0);
      if (pending !== undefined) q = q.where('members.accepted_at', pending ? 'is' : 'is not', null);
      return q.orderBy('members.create_time', 'desc').orderBy('members.id', 'desc').modifyEnd(crossProject('user-projects')).execute();
    },
  };
}

export type ProjectMemberReads = ReturnType<typeof projectMemberReads>;

export const membersRepository = {
  findByUser(db: Db, appId: string, userId: number): Promise<MemberRow | undefined> {
    return db.selectFrom('members').selectAll().where('app_id', '=', appId).where('user_id', '=', userId).executeTakeFirst();
  },

  /** By member record id, or by platform user id when the path is numeric. */
  async findByIdOrUser(db: Db, appId: string, ref: string): Promise<MemberRow | undefined> {
    const byId = await db.selectFrom('members').selectAll().where('app_id', '=', appId).where('id', '=', ref).executeTakeFirst();
    if (byId || !/^\d{1,10}$/.test(ref)) return byId;
    return this.findByUser(db, appId, Number(ref));
  },

  async isActive(db: Db, appId: string, userId: number): Promise<boolean> {
    const row = await db
      .selectFrom('members')
      .select('id')
      .where('app_id', '=', appId)
      .where('user_id', '=', userId)
      .where('status', '=', 0)
      .executeTakeFirst();
    return row !== undefined;
  },

  async insert(db: Db, row: MemberRow): Promise<void> {
    await db.insertInto('members').values(row).execute();
  },

  async update(db: Db, appId: string, id: string, patch: Updateable<MembersTable>): Promise<MemberRow | undefined> {
    return db.updateTable('members').set(patch).where('app_id', '=', appId).where('id', '=', id).returningAll().executeTakeFirst();
  },

  /** Marks a pending active member accepted; undefined when it was not pending (or no longer active). */
  acceptIfPending(db: Db, appId: string, id: string, now: number): Promise<MemberRow | undefined> {
    return db
      .updateTable('members')
      .set({ accepted_at: now, edit_time: now })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('status', '=', 0)
      .where('accepted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },

  /**
   * Active members by join time, optionally matching a keyword in the name, or in the mobile number
   * or e-mail of members who accepted (a pending member's are masked, and a substring search would
   * reveal them character by character).
   */
  list(db: Db, users: UserReadModel, query: MemberListQuery): Promise<MemberListRow[]> {
    const { appId, keyword, offset, limit } = query;
    let q = db
      .selectFrom('members')
      .innerJoin(users.cards(db).as('u'), 'u.u_id', 'members.user_id')
      .leftJoin(users.presence(db).as('p'), 'p.p_user_id', 'members.user_id')
      .selectAll('members')
      .select([
        'u.u_name',
        'u.u_photo_uri',
        'u.u_created_at',
        'u.u_updated_at',
        'u.u_phone_num',
        'u.u_phone_num_status',
        'u.u_email',
        'p.u_last_seen_at',
      ])
      .where('members.app_id', '=', appId)
      .where('members.status', '=', 0);
    if (keyword !== undefined && keyword !== '') {
      q = q.where((eb) =>
        eb.or([
          containsInsensitive(eb, eb.ref('u.u_name'), keyword),
          eb.and([
            eb('members.accepted_at', 'is not', null),
            eb.or([containsInsensitive(eb, eb.ref('u.u_phone_num'), keyword), containsInsensitive(eb, eb.ref('u.u_email'), keyword)]),
          ]),
        ]),
      );
    }
    return q.orderBy('members.create_time').orderBy('members.id').offset(offset).limit(limit).execute();
  },
};
