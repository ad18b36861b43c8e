import type { ViewerFile } from '../files/service.ts';
import type { RoomReads } from '../rooms/service.ts';
import type { LinkRow } from './mapper.ts';
import type { ViewerFiles } from './viewer-files.ts';
import type { ViewerRooms } from './viewer-rooms.ts';
import type { Brand, ViewerAnswer } from './viewer-model.ts';

export interface RoomViewerDeps {
  rooms: Pick<RoomReads, 'holds'>;
  /** The room's tree, kept a few seconds (viewer-rooms.ts). */
  viewerRoom: ViewerRooms;
  viewerFile: ViewerFiles;
}

/** What the room's page shows besides the room: the link's token, the view token, the project, the title a room name gives. */
export interface RoomPageContext {
  shareToken: string;
  viewToken: string | null;
  brand: Brand | null;
  /** What the reader sees as the title, given the room's name (the link's title first). */
  title: (roomName: string) => string;
}

/**
 * The public viewer of a room link (docs/rooms.md): the room's page (its tree), and its documents,
 * each checked against the room's contents on every request: a file the room does not hold (any
 * more), or one no longer the project's, is the same 404 as an unknown link. The viewer service
 * passes the gates first, and serves the documents' page images and downloads as a file link's.
 */
export function createRoomViewer(deps: RoomViewerDeps) {
  const { rooms, viewerFile, viewerRoom } = deps;

  /** A document of the link's room: a file the room holds that is still the project's; else null. */
  async function document(link: LinkRow, fileId: string): Promise<ViewerFile | null> {
    if (link.type !== 4 || link.room_id === null) return null;
    if (!(await rooms.holds(link.app_id, link.room_id, fileId))) return null;
    return viewerFile(link.app_id, fileId);
  }

  return {
    document,

    /** The room's page: its tree; a room gone is a document missing. */
    async page(link: LinkRow, c: RoomPageContext): Promise<ViewerAnswer> {
      const room = link.room_id === null ? null : await viewerRoom(link.app_id, link.room_id);
      if (room === null) return { kind: 'document-missing', title: c.title('') || 'Shared documents' };
      return { kind: 'room', shareToken: c.shareToken, title: c.title(room.name), viewToken: c.viewToken, room, brand: c.brand };
    },

    /** The name a room's document page shows to go back to the room, or null when the room is gone. */
    async roomTitle(link: LinkRow, c: Pick<RoomPageContext, 'title'>): Promise<string | null> {
      const room = link.room_id === null ? null : await viewerRoom(link.app_id, link.room_id);
      return room === null ? null : c.title(room.name);
    },
  };
}

export type RoomViewer = ReturnType<typeof createRoomViewer>;
