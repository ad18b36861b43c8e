import type { AppContext } from '../../context.ts';
import type { FileFactsReader } from '../files/service.ts';
import { type RoomLinksDisabler, createRoomsApi } from './rooms.service.ts';
import { createRoomReads } from './viewer.service.ts';

export type { RoomResponse } from './mapper.ts';
export type { RoomInput, RoomLinksDisabler, RoomsApi } from './rooms.service.ts';
export type { ItemInput, RoomDocument, RoomFolder, RoomItem } from './tree.ts';
export { documentsOf } from './tree.ts';
export type { RoomReads, ViewerRoom } from './viewer.service.ts';

/**
 * Data rooms (docs/rooms.md, ADR 0045), one service per caller: `api` (members make, read, change and
 * delete rooms: a name and a tree of folders and the project's files) and `reads` (what the links
 * module asks: whether a member may show a room by a link, and, for the public viewer, a room's tree
 * and whether a file is one of its documents). Files' names and page counts come from the files
 * module's facts; a deleted room's links are disabled through the links module's function.
 */
export function createRoomsServices(ctx: AppContext, deps: { files: FileFactsReader; disableLinks: RoomLinksDisabler }) {
  return { api: createRoomsApi(ctx, deps), reads: createRoomReads(ctx, { files: deps.files }) };
}

export type RoomsServices = ReturnType<typeof createRoomsServices>;
