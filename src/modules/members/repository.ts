import { type MembersTable, type Database, containsInsensitive } from '../../db/index.ts';
import type { Kysely, Updateable } from 'kysely';
import type { MemberListRow, MemberRow } from './mapper.ts';

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

  async update(db: Db, id: string, patch: Updateable<MembersTable>): Promise<MemberRow | undefined> {
    return db.updateTable('members').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
  },

  /** Active members by join time, optionally matching a keyword in name, mobile number or e-mail. */
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
          containsInsensitive(eb, eb.ref('users.phone_num'), keyword),
          containsInsensitive(eb, eb.ref('users.email'), keyword),
        ]),
      );
    }
    return q.orderBy('members.create_time').orderBy('members.id').offset(offset).limit(limit).execute();
  },
};
