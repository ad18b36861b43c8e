import { type AppsTable, type MembersTable, type Database, type DatabaseHandle, crossProject, preparedQuery } from '../../db/index.ts';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { AppRow } from './mapper.ts';

type Db = Kysely<Database>;

const appSecret = preparedQuery('appSecret', ({ db }, id: string) =>
  db.selectFrom('apps').select(['secret', 'previous_secret', 'previous_secret_until', 'status', 'creator_id']).where('id', '=', id),
);

const appSiteOrigins = preparedQuery('appSiteOrigins', ({ db }, id: string) =>
  db.selectFrom('apps').select(['site_origins', 'status']).where('id', '=', id),
);

const appBySiteKey = preparedQuery('appBySiteKey', ({ db }, key: string) =>
  db
    .selectFrom('apps')
    .select(['id', 'status', 'creator_id', 'site_origins', 'site_secret'])
    .where('site_key', '=', key)
    .modifyEnd(crossProject('site-key')),
);

export const projectsRepository = {
  async insertApp(db: Db, row: Insertable<AppsTable>): Promise<void> {
    await db.insertInto('apps').values(row).execute();
  },
  async insertMember(db: Db, row: Insertable<MembersTable>): Promise<void> {
    await db.insertInto('members').values(row).execute();
  },
  /** A project's name, whatever its status; null for none. */
  async name(db: Db, id: string): Promise<string | null> {
    return (await db.selectFrom('apps').select('name').where('id', '=', id).executeTakeFirst())?.name ?? null;
  },
  async updateApp(db: Db, id: string, patch: Updateable<AppsTable>): Promise<void> {
    await db.updateTable('apps').set(patch).where('id', '=', id).execute();
  },
  /** What a project secret is checked against: the secret, whether the project is live, its creator. */
  findSecret(database: DatabaseHandle, id: string) {
    // Every ingestion request and collect call checks it: cached until the project's row changes.
    return database
      .cache<
        string,
        | { secret: string; previous_secret: string | null; previous_secret_until: number | null; status: number; creator_id: number }
        | undefined
      >('app-secrets', 'access')
      .get(id, () => database.reader.first(appSecret, id));
  },
  /** The project whose site key this is (the snippet's collect calls): cached until the project's row changes. */
  findBySiteKey(database: DatabaseHandle, key: string) {
    return database
      .cache<
        string,
        { id: string; status: number; creator_id: number; site_origins: string | null; site_secret: string | null } | undefined
      >('app-site-keys', 'access')
      .get(key, () => database.reader.first(appBySiteKey, key));
  },
  /** The project's site origins (the viewer hands its visitor to them): cached until the project's row changes. */
  findSiteOrigins(database: DatabaseHandle, id: string) {
    return database
      .cache<string, { site_origins: string | null; status: number } | undefined>('app-site-origins', 'access')
      .get(id, () => database.reader.first(appSiteOrigins, id));
  },
  /** Live projects the user is an active member of, newest first, with the caller's role. */
  listForUser(db: Db, userId: number): Promise<(AppRow & { role: string })[]> {
    return db
      .selectFrom('members')
      .innerJoin('apps', 'apps.id', 'members.app_id')
      .selectAll('apps')
      .select('members.role')
      .where('members.user_id', '=', userId)
      .where('members.status', '=', 0)
      .where('apps.status', '=', 0)
      .orderBy('apps.create_time', 'desc')
      .orderBy('apps.id', 'desc')
      .modifyEnd(crossProject('user-projects'))
      .execute();
  },
};
