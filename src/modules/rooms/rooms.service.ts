import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { FileFacts, FileFactsReader } from '../files/service.ts';
import { type RoomItemRow, type RoomResponse, type RoomRow, toRoom } from './mapper.ts';
import { roomsRepository as repo } from './repository.ts';
import { type ItemInput, type ItemRow, itemRows, treeOf } from './tree.ts';

/** A room's fields as an edit gives them (create: `name` required). */
export interface RoomInput {
  name?: string | undefined;
  items?: ItemInput[] | undefined;
}

/** Disables the project's links that show a room, in the caller's transaction (the links module's); answers how many. */
export type RoomLinksDisabler = (trx: Kysely<Database>, appId: string, roomId: string, now: number) => Promise<number>;

export interface RoomsApiDeps {
  files: FileFactsReader;
  /** A deleted room's links stop opening (they show it no more). */
  disableLinks: RoomLinksDisabler;
}

export const ROOM_NAME_MAX = 255;

export const roomNotFound = () => failure('room_not_found');

/**
 * Data rooms as members manage them (docs/rooms.md): any member makes one (it is theirs); the
 * Master and Admins read and change any room of the project, Sales members their own (another's
 * is room_not_found, as an unknown one is). An edit replaces the name or the whole tree given.
 */
export function createRoomsApi(ctx: AppContext, deps: RoomsApiDeps) {
  const db = ctx.database.db;
  const { clock } = ctx;

  function checkedName(name: string | undefined): string {
    const n = name?.trim() ?? '';
    if (n === '') throw failure('name_required', 'name is required');
    if (n.length > ROOM_NAME_MAX) throw failure('name_invalid', `name must be at most ${ROOM_NAME_MAX} characters`);
    return n;
  }

  /** The tree's rows, its files checked to be the project's. */
  async function checkedItems(actor: Actor, items: ItemInput[]): Promise<ItemRow[]> {
    const { rows, fileIds } = itemRows(items);
    const facts = await deps.files.of(db, actor.app.id, fileIds);
    const missing = fileIds.find((id) => !facts.has(id));
    if (missing !== undefined) throw failure('file_not_found', `file ${missing.slice(0, 64)} is not a file of this project`);
    return rows;
  }

  /** Rooms with their trees as the API shows them, each document's file as it is now. */
  async function records(appId: string, rooms: RoomRow[]): Promise<RoomResponse[]> {
    const rows = await repo.items(
      db,
      appId,
      rooms.map((r) => r.id),
    );
    const fileIds = [...new Set(rows.flatMap((r) => (r.file_id === null ? [] : [r.file_id])))];
    const facts = new Map<string, FileFacts>();
    for (let i = 0; i < fileIds.length; i += 1000) {
      for (const [id, f] of await deps.files.of(db, appId, fileIds.slice(i, i + 1000))) facts.set(id, f);
    }
    const byRoom = new Map<string, RoomItemRow[]>();
    for (const r of rows) byRoom.set(r.room_id, [...(byRoom.get(r.room_id) ?? []), r]);
    return rooms.map((room) => toRoom(room, treeOf(byRoom.get(room.id) ?? [], facts), clock));
  }

  /** A room the actor may read and change: Master and Admin any of the project, Sales their own; else room_not_found. */
  async function mine(actor: Actor, id: string): Promise<RoomRow> {
    const room = id.length > 64 ? undefined : await repo.find(db, actor.app.id, id);
    if (room === undefined || (!actor.isManager && room.creator_id !== actor.userId)) throw roomNotFound();
    return room;
  }

  async function one(actor: Actor, room: RoomRow): Promise<RoomResponse> {
    return (await records(actor.app.id, [room]))[0] as RoomResponse;
  }

  return {
    mine,

    /** Any member makes a room (theirs), with its tree when given. */
    async create(actor: Actor, input: RoomInput): Promise<RoomResponse> {
      const name = checkedName(input.name);
      const rows = await checkedItems(actor, input.items ?? []);
      const now = clock.now();
      const room: RoomRow = {
        id: timeOrderedUuid(now),
        app_id: actor.app.id,
        name,
        creator_id: actor.userId,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insert(trx, room);
        await repo.replaceItems(trx, room.app_id, room.id, rows);
      });
      return one(actor, room);
    },

    /** The project's rooms (Sales: their own), newest first. */
    async list(actor: Actor, page: Page): Promise<RoomResponse[]> {
      const rooms = await repo.page(db, actor.app.id, { creatorId: actor.isManager ? null : actor.userId, ...page });
      return records(actor.app.id, rooms);
    },

    async get(actor: Actor, id: string): Promise<RoomResponse> {
      return one(actor, await mine(actor, id));
    },

    /** The name and the tree given change; a tree given replaces the room's whole tree. */
    async update(actor: Actor, req: { roomId: string; input: RoomInput }): Promise<RoomResponse> {
      const room = await mine(actor, req.roomId);
      const name = req.input.name === undefined ? undefined : checkedName(req.input.name);
      const rows = req.input.items === undefined ? null : await checkedItems(actor, req.input.items);
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.touch(trx, actor.app.id, room.id, { ...(name === undefined ? {} : { name }), updated_at: now })))
          throw roomNotFound();
        if (rows !== null) await repo.replaceItems(trx, actor.app.id, room.id, rows);
      });
      return one(actor, await mine(actor, room.id));
    },

    /** Deletes the room and its tree; its links are disabled (their page answers 410), their views and counters stay. */
    async remove(actor: Actor, req: { roomId: string }): Promise<true> {
      const room = await mine(actor, req.roomId);
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, actor.app.id, room.id))) throw roomNotFound();
        await deps.disableLinks(trx, actor.app.id, room.id, now);
      });
      return true;
    },
  };
}

export type RoomsApi = ReturnType<typeof createRoomsApi>;
