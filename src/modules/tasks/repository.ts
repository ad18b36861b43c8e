/**
 * The tasks module's SQL of notes (notes.service.ts, and the team records' join). Tasks are in
 * tasks.repository.ts; the merge moves and erasure of both in erasure.repository.ts.
 */
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, NotesTable } from '../../db/index.ts';
import type { NoteRow } from './mapper.ts';

type Db = Kysely<Database>;

export const notesRepository = {
  async insert(db: Db, row: Insertable<NotesTable>): Promise<void> {
    await db.insertInto('notes').values(row).execute();
  },

  find(db: Db, appId: string, id: string): Promise<NoteRow | undefined> {
    return db.selectFrom('notes').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  update(db: Db, appId: string, id: string, patch: Updateable<NotesTable>): Promise<NoteRow | undefined> {
    return db.updateTable('notes').set(patch).where('app_id', '=', appId).where('id', '=', id).returningAll().executeTakeFirst();
  },

  async remove(db: Db, appId: string, id: string): Promise<boolean> {
    const r = await db.deleteFrom('notes').where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },

  /** A page of a customer's notes, newest first (ties by id, newest first). */
  page(db: Db, appId: string, customerId: string, offset: number, limit: number): Promise<NoteRow[]> {
    return db
      .selectFrom('notes')
      .selectAll()
      .where('app_id', '=', appId)
      .where('customer_id', '=', customerId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
  },

  /** The project's notes of these ids. */
  byIds(db: Db, appId: string, ids: string[]): Promise<NoteRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.selectFrom('notes').selectAll().where('app_id', '=', appId).where('id', 'in', ids).execute();
  },
};
