import { type AppsTable, type Database, type DatabaseHandle, crossProject, preparedQuery } from '../../db/index.ts';
import type { Insertable, Kysely, Updateable } from 'kysely';

type Db = Kysely<Database>;

const appSecret = preparedQuery('appSecret', ({ db }, id: string) =>
  db.selectFrom('apps').select(['secret', 'previous_secret', 'previous_secret_until', 'status', 'creator_id']).where('id', '=', id),
);

const appSiteOrigins = preparedQuery('appSiteOrigins', ({ db }, id: string) =>
  db.selectFrom('apps').select(['site_origins', 'status']).where('id', '=', id),
);

const appRegion = preparedQuery('appRegion', ({ db }, id: string) => db.selectFrom('apps').select(['region']).where('id', '=', id));

const appBySiteKey = preparedQuery('appBySiteKey', ({ db }, key: string) =>
  db
    .selectFrom('apps')
    .select(['id', 'status', 'creator_id', 'site_origins', 'site_secret'])
    .where('site_key', '=', key)
    .modifyEnd(crossProject('site-key')),
);

const appShareDomains = preparedQuery('appShareDomains', ({ db }) =>
  db.selectFrom('apps').select(['id', 'share_domain']).where('share_domain', 'is not', null).modifyEnd(crossProject('share-domains')),
);

/** Every project's share domain, both ways. */
export interface ShareDomainMap {
  byDomain: ReadonlyMap<string, string>;
  byProject: ReadonlyMap<string, string>;
}

export const projectsRepository = {
  async insertApp(db: Db, row: Insertable<AppsTable>): Promise<void> {
    await db.insertInto('apps').values(row).execute();
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
  /** The project's region (every customer write reads its numbers against it): cached until the project's row changes. */
  findRegion(database: DatabaseHandle, id: string) {
    return database
      .cache<string, { region: string } | undefined>('app-regions', 'access')
      .get(id, () => database.reader.first(appRegion, id));
  },
  /**
   * Every project's share domain (a request's Host is looked up in it, a project's addresses are
   * built from it), read at once: cached until a project's row changes, in any process.
   */
  shareDomains(database: DatabaseHandle): Promise<ShareDomainMap> {
    return database.cache<'all', ShareDomainMap>('app-share-domains', 'access', 1).get('all', async () => {
      const rows = await database.reader.all(appShareDomains);
      const byDomain = new Map<string, string>();
      const byProject = new Map<string, string>();
      for (const r of rows) {
        if (r.share_domain === null) continue;
        byDomain.set(r.share_domain, r.id);
        byProject.set(r.id, r.share_domain);
      }
      return { byDomain, byProject };
    });
  },
  /** The project's site origins (the viewer hands its visitor to them): cached until the project's row changes. */
  findSiteOrigins(database: DatabaseHandle, id: string) {
    return database
      .cache<string, { site_origins: string | null; status: number } | undefined>('app-site-origins', 'access')
      .get(id, () => database.reader.first(appSiteOrigins, id));
  },
};

/**
 * The read model projects exports to the repositories that join their rows to a project (the
 * members module's memberships): the start of a statement over `apps`, to which the caller joins its
 * own table on `key` and adds its own columns and conditions, so that the whole is one statement.
 * Reached through the projects service (`projectReadModel`); its type is `ProjectReadModel` of mapper.ts.
 */
export const projectReadModel = {
  /** The column other tables' `app_id` joins to. */
  key: 'apps.id' as const,
  /** The project of this id, every column (live or not: the caller looks at `status`). */
  byId(db: Db, appId: string) {
    return db.selectFrom('apps').selectAll('apps').where('apps.id', '=', appId);
  },
  /** Every column of the live projects, newest first. */
  liveNewestFirst(db: Db) {
    return db
      .selectFrom('apps')
      .selectAll('apps')
      .where('apps.status', '=', 0)
      .orderBy('apps.create_time', 'desc')
      .orderBy('apps.id', 'desc');
  },
  /** The live projects, with the name, description and creator a membership list shows of each. */
  liveSummaries(db: Db) {
    return db
      .selectFrom('apps')
      .select(['apps.name as app_name', 'apps.description as app_description', 'apps.creator_id as app_creator_id'])
      .where('apps.status', '=', 0);
  },
  /** The live projects a user created, no column. */
  liveCreatedBy(db: Db, userId: number) {
    return db.selectFrom('apps').where('apps.creator_id', '=', userId).where('apps.status', '=', 0);
  },
};
