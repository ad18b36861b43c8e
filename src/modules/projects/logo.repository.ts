import { type Database, type PreparedReader, preparedQuery } from '../../db/index.ts';
import type { Kysely, Selectable } from 'kysely';

type Db = Kysely<Database>;
export type LogoRow = Selectable<Database['project_logos']>;

const logoOf = preparedQuery('projectLogo', ({ db }, appId: string) =>
  db.selectFrom('project_logos').selectAll().where('app_id', '=', appId),
);

// The project's name and its logo's token, for the public viewer: one row, by the project's key.
const brandOf = preparedQuery('projectBrand', ({ db }, appId: string) =>
  db
    .selectFrom('apps')
    .leftJoin('project_logos', (j) => j.onRef('project_logos.app_id', '=', 'apps.id'))
    .select(['apps.name', 'project_logos.token'])
    .where('apps.id', '=', appId),
);

/** The SQL of projects' logos (`project_logos`; the bytes are in the file storage). */
export const logoRepository = {
  logo(r: PreparedReader, appId: string): Promise<LogoRow | undefined> {
    return r.first(logoOf, appId);
  },

  brand(r: PreparedReader, appId: string): Promise<{ name: string; token: string | null } | undefined> {
    return r.first(brandOf, appId);
  },

  /**
   * The project's logo, now this one, and the project's icon (`iconURL`, its size) with it; answers
   * the row it replaced, whose bytes are the caller's to remove.
   */
  async replace(trx: Db, row: LogoRow, icon: { url: string; width: number; height: number }): Promise<LogoRow | undefined> {
    const before = await trx.deleteFrom('project_logos').where('app_id', '=', row.app_id).returningAll().executeTakeFirst();
    await trx
      .insertInto('project_logos')
      .values(row)
      .onConflict((oc) =>
        oc.column('app_id').doUpdateSet({ token: row.token, content_type: row.content_type, size: row.size, updated_at: row.updated_at }),
      )
      .execute();
    await trx
      .updateTable('apps')
      .set({ icon_url: icon.url, icon_width: icon.width, icon_height: icon.height, edit_time: row.updated_at })
      .where('id', '=', row.app_id)
      .execute();
    return before;
  },

  /** The project has no logo (nor icon) any more; answers the row removed, if there was one. */
  async remove(trx: Db, appId: string, now: number): Promise<LogoRow | undefined> {
    const before = await trx.deleteFrom('project_logos').where('app_id', '=', appId).returningAll().executeTakeFirst();
    if (before !== undefined)
      await trx
        .updateTable('apps')
        .set({ icon_url: null, icon_width: null, icon_height: null, edit_time: now })
        .where('id', '=', appId)
        .execute();
    return before;
  },
};
