import { type Database, type PreparedReader, preparedQuery } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import type { RoomItemRow, RoomRow } from './mapper.ts';
import type { ItemRow } from './tree.ts';

type Db = Kysely<Database>;

/** Rows of a tree per insert statement (7 parameters each). */
const ITEMS_PER_INSERT = 100;

/** A room of the project: the viewer reads it for every room page. */
const roomById = preparedQuery('roomById', ({ db }, appId: string, id: string) =>
  db.selectFrom('rooms').selectAll().where('app_id', '=', appId).where('id', '=', id),
);

const roomItems = preparedQuery('roomItems', ({ db }, appId: string, roomId: string) =>
  db.selectFrom('room_items').selectAll().where('app_id', '=', appId).where('room_id', '=', roomId).orderBy('position'),
);

/** Whether a room holds a file: every document page, page image and beacon of a room link asks (the unique index). */
const roomHolds = preparedQuery('roomHoldsFile', ({ db }, appId: string, roomId: string, fileId: string) =>
  db.selectFrom('room_items').select('position').where('app_id', '=', appId).where('room_id', '=', roomId).where('file_id', '=', fileId),
);

/** SQL of data rooms and their trees (docs/rooms.md). */
export const roomsRepository = {
  async insert(trx: Db, row: RoomRow): Promise<void> {
    await trx.insertInto('rooms').values(row).execute();
  },

  find(db: Db, appId: string, id: string): Promise<RoomRow | undefined> {
    return db.selectFrom('rooms').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  /** A page of the project's rooms (or one member's), newest first; ties broken on id. */
  page(db: Db, appId: string, q: { creatorId: number | null; offset: number; limit: number }): Promise<RoomRow[]> {
    let query = db.selectFrom('rooms').selectAll().where('app_id', '=', appId);
    if (q.creatorId !== null) query = query.where('creator_id', '=', q.creatorId);
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(q.offset).limit(q.limit).execute();
  },

  /** The trees of these rooms of the project, in reading order. */
  async items(db: Db, appId: string, roomIds: string[]): Promise<RoomItemRow[]> {
    if (roomIds.length === 0) return [];
    return db
      .selectFrom('room_items')
      .selectAll()
      .where('app_id', '=', appId)
      .where('room_id', 'in', roomIds)
      .orderBy('room_id')
      .orderBy('position')
      .execute();
  },

  /** Renames a room or marks it changed; false when it is gone. */
  async touch(trx: Db, appId: string, id: string, patch: { name?: string; updated_at: number }): Promise<boolean> {
    const res = await trx.updateTable('rooms').set(patch).where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },

  /** Replaces a room's tree with these rows. */
  async replaceItems(trx: Db, appId: string, roomId: string, rows: ItemRow[]): Promise<void> {
    await trx.deleteFrom('room_items').where('app_id', '=', appId).where('room_id', '=', roomId).execute();
    for (let i = 0; i < rows.length; i += ITEMS_PER_INSERT) {
      const chunk = rows.slice(i, i + ITEMS_PER_INSERT).map((r) => ({ app_id: appId, room_id: roomId, ...r }));
      await trx.insertInto('room_items').values(chunk).execute();
    }
  },

  /** Deletes a room and its tree; false when it was gone. */
  async remove(trx: Db, appId: string, id: string): Promise<boolean> {
    await trx.deleteFrom('room_items').where('app_id', '=', appId).where('room_id', '=', id).execute();
    const res = await trx.deleteFrom('rooms').where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) === 1;
  },

  /** A room and its tree, as the viewer reads them. */
  async withItems(r: PreparedReader, appId: string, id: string): Promise<{ room: RoomRow; items: RoomItemRow[] } | undefined> {
    const [room, items] = await Promise.all([r.first(roomById, appId, id), r.all(roomItems, appId, id)]);
    return room === undefined ? undefined : { room, items: items.sort((a, b) => a.position - b.position) };
  },

  async holds(r: PreparedReader, appId: string, roomId: string, fileId: string): Promise<boolean> {
    return (await r.first(roomHolds, appId, roomId, fileId)) !== undefined;
  },
};
