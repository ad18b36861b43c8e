/**
 * A room's tree (docs/rooms.md): the items an edit gives, checked and numbered into rows, and the
 * rows read back into the tree the API and the viewer show. Pure: no database.
 */
import { fieldFailure } from '../../http/errors.ts';
import type { FileFacts } from '../files/service.ts';

/** Folders nest at most this deep (a folder in a folder in a folder in a folder). */
export const MAX_FOLDER_DEPTH = 4;
/** Folders and documents of one room, together. */
export const MAX_ROOM_ITEMS = 500;
/** A folder's name, in characters. */
export const FOLDER_NAME_MAX = 200;

/** An item of the tree an edit gives (the body's `items`). */
export type ItemInput = { type: 'file'; file_id: string } | { type: 'folder'; name: string; items?: ItemInput[] | undefined };

/** A row of the tree (a room_items row without its room): its reading order and parent. */
export interface ItemRow {
  position: number;
  parent: number | null;
  /** folder | file */
  kind: string;
  name: string | null;
  file_id: string | null;
}

/** A document of the room as read: the file's facts of now. */
export interface RoomDocument {
  type: 'file';
  fileId: string;
  name: string;
  pageCount: number;
  version: number;
  status: FileFacts['status'];
  renderedPages: number;
}

export interface RoomFolder {
  type: 'folder';
  name: string;
  items: RoomItem[];
}

export type RoomItem = RoomDocument | RoomFolder;

const invalid = (detail: string) => fieldFailure('items', 'invalid', detail);

/**
 * The rows of a tree, in reading order (depth first), with the files it names: folders named
 * (1–200 characters, trimmed), at most MAX_FOLDER_DEPTH deep, at most MAX_ROOM_ITEMS items in all,
 * each file once. Whether the files are the project's is the caller's to check.
 */
export function itemRows(items: ItemInput[]): { rows: ItemRow[]; fileIds: string[] } {
  const rows: ItemRow[] = [];
  const seen = new Set<string>();
  const walk = (list: ItemInput[], parent: number | null, depth: number, path: string) => {
    list.forEach((item, i) => {
      const where = `${path}[${i}]`;
      if (rows.length >= MAX_ROOM_ITEMS) throw invalid(`A room holds at most ${MAX_ROOM_ITEMS} folders and documents`);
      const position = rows.length;
      if (item.type === 'file') {
        const fileId = item.file_id.trim();
        if (fileId === '') throw invalid(`${where}.file_id: a document names a file`);
        if (seen.has(fileId)) throw invalid(`${where}.file_id: the file ${fileId.slice(0, 64)} is already in the room`);
        seen.add(fileId);
        rows.push({ position, parent, kind: 'file', name: null, file_id: fileId });
        return;
      }
      if (depth > MAX_FOLDER_DEPTH) throw invalid(`${where}: folders nest at most ${MAX_FOLDER_DEPTH} deep`);
      const name = item.name.trim();
      if (name === '' || name.length > FOLDER_NAME_MAX)
        throw invalid(`${where}.name: a folder's name is 1 to ${FOLDER_NAME_MAX} characters`);
      rows.push({ position, parent, kind: 'folder', name, file_id: null });
      walk(item.items ?? [], position, depth + 1, `${where}.items`);
    });
  };
  walk(items, null, 1, 'items');
  return { rows, fileIds: [...seen] };
}

/**
 * The tree of a room's rows (in reading order), each document with its file's facts; a document
 * whose file is no longer the project's is left out (docs/rooms.md: it leaves the room).
 */
export function treeOf(
  rows: Pick<ItemRow, 'position' | 'parent' | 'kind' | 'name' | 'file_id'>[],
  files: Map<string, FileFacts>,
): RoomItem[] {
  const root: RoomItem[] = [];
  const folders = new Map<number, RoomFolder>();
  for (const r of [...rows].sort((a, b) => a.position - b.position)) {
    const parent = r.parent === null ? root : folders.get(r.parent)?.items;
    if (parent === undefined) continue;
    if (r.kind === 'folder') {
      const folder: RoomFolder = { type: 'folder', name: r.name ?? '', items: [] };
      folders.set(r.position, folder);
      parent.push(folder);
      continue;
    }
    const f = r.file_id === null ? undefined : files.get(r.file_id);
    if (f === undefined || r.file_id === null) continue;
    parent.push({
      type: 'file',
      fileId: r.file_id,
      name: f.name,
      pageCount: f.pageCount,
      version: f.version,
      status: f.status,
      renderedPages: f.renderedPages,
    });
  }
  return root;
}

/** The documents of a tree, in reading order. */
export function documentsOf(items: RoomItem[]): RoomDocument[] {
  return items.flatMap((i) => (i.type === 'file' ? [i] : documentsOf(i.items)));
}
