import type { AppContext } from '../../context.ts';
import type { Actor } from '../access/service.ts';
import type { FileFactsReader } from '../files/service.ts';
import { roomsRepository as repo } from './repository.ts';
import { type RoomItem, treeOf } from './tree.ts';

/** A room as the public viewer shows it: its name and tree, documents whose file is gone left out. */
export interface ViewerRoom {
  id: string;
  name: string;
  items: RoomItem[];
}

/**
 * What the links module asks of rooms (docs/rooms.md): whether a member may show a room by a link
 * (link create and edit), and, for the public viewer, which link opened it having been checked
 * there, the room's tree and whether a file is one of its documents, asked on every request.
 */
export function createRoomReads(ctx: AppContext, deps: { files: FileFactsReader }) {
  const db = ctx.database.db;
  const reader = ctx.database.reader;
  return {
    /** Whether the actor may show this room by a link: the Master and Admins any room of the project, Sales their own. */
    async usable(actor: Actor, roomId: string): Promise<boolean> {
      if (roomId.length > 64) return false;
      const room = await repo.find(db, actor.app.id, roomId);
      return room !== undefined && (actor.isManager || room.creator_id === actor.userId);
    },

    /** The room's name and tree as the viewer shows them; null when the project has no such room. */
    async viewerRoom(appId: string, roomId: string): Promise<ViewerRoom | null> {
      const found = await repo.withItems(reader, appId, roomId);
      if (found === undefined) return null;
      const fileIds = found.items.flatMap((r) => (r.file_id === null ? [] : [r.file_id]));
      const files = await deps.files.of(db, appId, fileIds);
      return { id: found.room.id, name: found.room.name, items: treeOf(found.items, files) };
    },

    /** Whether the room holds the file as one of its documents (whether the file is still the project's is the files module's). */
    holds(appId: string, roomId: string, fileId: string): Promise<boolean> {
      if (fileId.length > 64) return Promise.resolve(false);
      return repo.holds(reader, appId, roomId, fileId);
    },
  };
}

export type RoomReads = ReturnType<typeof createRoomReads>;
