import type { Readable } from 'node:stream';
import { AppError } from '../../http/errors.ts';
import type { FileViewer, PageImage, PageWidth, ViewerFile } from '../files/service.ts';
import type { RoomReads } from '../rooms/service.ts';
import type { LinkGates } from './gates.ts';
import type { LinkRow } from './mapper.ts';
import type { ViewerFiles } from './viewer-files.ts';
import type { ViewerRooms } from './viewer-rooms.ts';
import type { Brand, ViewerAnswer } from './viewer-model.ts';

export interface RoomViewerDeps {
  rooms: Pick<RoomReads, 'holds'>;
  /** The room's tree, kept a few seconds (viewer-rooms.ts). */
  viewerRoom: ViewerRooms;
  files: Pick<FileViewer, 'viewerPage' | 'viewerOriginal'>;
  gates: LinkGates;
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
 * passes the gates first for the pages; the page images and the download ask them here.
 */
export function createRoomViewer(deps: RoomViewerDeps) {
  const { rooms, files, gates, viewerFile, viewerRoom } = deps;

  /** A document of the link's room: a file the room holds that is still the project's; else null. */
  async function document(link: LinkRow, fileId: string): Promise<ViewerFile | null> {
    if (link.type !== 4 || link.room_id === null) return null;
    if (!(await rooms.holds(link.app_id, link.room_id, fileId))) return null;
    return viewerFile(link.app_id, fileId);
  }

  /** The open, unlocked room link of a share token, or null. */
  async function unlockedRoomLink(
    shareToken: string,
    unlock: string | undefined,
    within: string | null | undefined,
  ): Promise<LinkRow | null> {
    const found = await gates.linkOf(shareToken, within);
    if (!('link' in found) || found.link.type !== 4) return null;
    return (await gates.locked(found.link, unlock)) ? null : found.link;
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

    /** A page image of a document of an open room link (gates passed); null for anything else (the same 404). */
    async pageImage(req: {
      shareToken: string;
      unlock: string | undefined;
      fileId: string;
      n: number;
      width: PageWidth;
      ifNoneMatch?: string | undefined;
      /** The project whose share domain the request came to (another project's link: the 404). */
      within?: string | null;
    }): Promise<PageImage | null> {
      const link = await unlockedRoomLink(req.shareToken, req.unlock, req.within);
      if (link === null || (await document(link, req.fileId)) === null) return null;
      try {
        return await files.viewerPage(link.app_id, { fileId: req.fileId, n: req.n, width: req.width, ifNoneMatch: req.ifNoneMatch });
      } catch (err) {
        if (err instanceof AppError) return null;
        throw err;
      }
    },

    /** A document's original, when the room link allows downloads (gates passed); null otherwise. */
    async download(
      shareToken: string,
      req: { unlock: string | undefined; fileId: string; within?: string | null },
    ): Promise<{ name: string; contentType: string; size: number; body: Readable } | null> {
      const link = await unlockedRoomLink(shareToken, req.unlock, req.within);
      if (link === null || link.allow_download !== 1 || (await document(link, req.fileId)) === null) return null;
      return files.viewerOriginal(link.app_id, req.fileId);
    },
  };
}

export type RoomViewer = ReturnType<typeof createRoomViewer>;
