import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';

type Db = Kysely<Database>;

export const clientsRepository = {
  async insert(db: Db, row: Database['oauth_clients']): Promise<void> {
    await db.insertInto('oauth_clients').values(row).execute();
  },
  /** Inserts the row unless a client with its id exists (any process may, at the same time). */
  async insertIfAbsent(db: Db, row: Database['oauth_clients']): Promise<void> {
    await db
      .insertInto('oauth_clients')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  },
  /** Inserts the row unless its id is taken; true when it was inserted. */
  async insertNew(db: Db, row: Database['oauth_clients']): Promise<boolean> {
    const res = await db
      .insertInto('oauth_clients')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  },
  find(db: Db, id: string) {
    return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
  },
  list(db: Db) {
    return db.selectFrom('oauth_clients').select(['id', 'name', 'created_at', 'revoked_at']).orderBy('created_at').orderBy('id').execute();
  },
  /** Marks the client revoked; false when there is no such client. */
  async markRevoked(db: Db, id: string, now: number): Promise<boolean> {
    const res = await db.updateTable('oauth_clients').set({ revoked_at: now }).where('id', '=', id).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  },
};
