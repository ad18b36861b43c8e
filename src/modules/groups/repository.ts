import { type PreparedReader, preparedQuery, type CustomerGroupsTable, type Database } from '../../db/index.ts';
import type { Kysely, Selectable } from 'kysely';

export type GroupRow = Selectable<CustomerGroupsTable>;
type Db = Kysely<Database>;

const groupNames = preparedQuery('groupNames', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  db
    .selectFrom('customer_groups')
    .select(['id', 'name'])
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);

export const groupsRepository = {
  find(db: Db, appId: string, id: string): Promise<GroupRow | undefined> {
    return db.selectFrom('customer_groups').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  async insert(db: Db, row: GroupRow): Promise<void> {
    await db.insertInto('customer_groups').values(row).execute();
  },

  /** Groups of the project, oldest first; one owner's or the whole project's. */
  list(db: Db, appId: string, ownerId: number | null): Promise<GroupRow[]> {
    let q = db.selectFrom('customer_groups').selectAll().where('app_id', '=', appId);
    if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
    return q.orderBy('created_at').orderBy('id').execute();
  },

  async names(reader: PreparedReader, appId: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await reader.all(groupNames, appId, ids);
    return new Map(rows.map((r) => [r.id, r.name]));
  },
};
