import { type MembersTable, type Database, containsInsensitive, crossProject } from '../../db/index.ts';
import type { Kysely, Updateable } from 'kysely';
import type { MemberListRow, MemberRow, UserMembershipRow } from './mapper.ts';

type Db = Kysely<Database>;

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

  /** The user's active memberships in live projects, newest first, with each project's name and creator; `pending` narrows them. */
  listForUser(db: Db, userId: number, pending: boolean | undefined): Promise<UserMembershipRow[]> {
    let q = db
      .selectFrom('members')
      .innerJoin('apps', 'apps.id', 'members.app_id')
      .selectAll('members')
      .select(['apps.name as a_name', 'apps.description as a_description', 'apps.creator_id as a_creator_id'])
      .where('members.user_id', '=', userId)
      .where('members.status', '=', 0)
      .where('apps.status', '=', 0);
    if (pending !== undefined) q = q.where('members.accepted_at', pending ? 'is' : 'is not', null);
    return q.orderBy('members.create_time', 'desc').orderBy('members.id', 'desc').modifyEnd(crossProject('user-projects')).execute();
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
  list(db: Db, appId: string, keyword: string | undefined, offset: number, limit: number): Promise<MemberListRow[]> {
    let q = db
      .selectFrom('members')
      .innerJoin('users', 'users.id', 'members.user_id')
      .leftJoin('user_presence', 'user_presence.user_id', 'members.user_id')
      .selectAll('members')
      .select([
        'users.name as u_name',
        'users.photo_uri as u_photo_uri',
        'users.created_at as u_created_at',
        'users.updated_at as u_updated_at',
        'users.phone_num as u_phone_num',
        'users.phone_num_status as u_phone_num_status',
        'users.email as u_email',
        'user_presence.last_seen_at as u_last_seen_at',
      ])
      .where('members.app_id', '=', appId)
      .where('members.status', '=', 0);
    if (keyword !== undefined && keyword !== '') {
      q = q.where((eb) =>
        eb.or([
          containsInsensitive(eb, eb.ref('users.name'), keyword),
          eb.and([
            eb('members.accepted_at', 'is not', null),
            eb.or([containsInsensitive(eb, eb.ref('users.phone_num'), keyword), containsInsensitive(eb, eb.ref('users.email'), keyword)]),
          ]),
        ]),
      );
    }
    return q.orderBy('members.create_time').orderBy('members.id').offset(offset).limit(limit).execute();
  },
};
