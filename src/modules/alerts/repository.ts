/**
 * The alerts module's SQL of settings: a member's own (`alert_settings`, global) and their choice in
 * each project (`alert_project_settings`).
 */
import { type AlertProjectSettingsTable, type AlertSettingsTable, type Database, crossProject } from '../../db/index.ts';
import type { Insertable, Kysely, Selectable } from 'kysely';

type Db = Kysely<Database>;
export type SettingsRow = Selectable<AlertSettingsTable>;
export type ChoiceRow = Selectable<AlertProjectSettingsTable>;

export const settingsRepository = {
  find(db: Db, userId: number): Promise<SettingsRow | undefined> {
    return db.selectFrom('alert_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
  },

  /** The stored settings of these users (those with none are absent: they have the defaults). */
  ofUsers(db: Db, userIds: number[]): Promise<SettingsRow[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return db.selectFrom('alert_settings').selectAll().where('user_id', 'in', userIds).execute();
  },

  async save(db: Db, row: Insertable<AlertSettingsTable>): Promise<void> {
    const { user_id: _key, ...rest } = row;
    await db
      .insertInto('alert_settings')
      .values(row)
      .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
      .execute();
  },

  /** The user's choices in every project they made one in. */
  choicesOfUser(db: Db, userId: number): Promise<ChoiceRow[]> {
    return db
      .selectFrom('alert_project_settings')
      .selectAll()
      .where('user_id', '=', userId)
      .modifyEnd(crossProject('user-notifications'))
      .execute();
  },

  /** These users' choices in one project. */
  choicesIn(db: Db, appId: string, userIds: number[]): Promise<ChoiceRow[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return db.selectFrom('alert_project_settings').selectAll().where('app_id', '=', appId).where('user_id', 'in', userIds).execute();
  },

  /** The members of a project who asked for every customer they may see (scope `all`). */
  async allScope(db: Db, appId: string): Promise<number[]> {
    const rows = await db
      .selectFrom('alert_project_settings')
      .select('user_id')
      .where('app_id', '=', appId)
      .where('scope', '=', 'all')
      .limit(1000)
      .execute();
    return rows.map((r) => r.user_id);
  },

  async saveChoice(db: Db, row: Insertable<AlertProjectSettingsTable>): Promise<void> {
    const { app_id: _app, user_id: _user, ...rest } = row;
    await db
      .insertInto('alert_project_settings')
      .values(row)
      .onConflict((oc) => oc.columns(['app_id', 'user_id']).doUpdateSet(rest))
      .execute();
  },
};
