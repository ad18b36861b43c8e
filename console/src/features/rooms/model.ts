/**
 * The rules of the room editor apart from React (docs/rooms.md): a room's tree as the editor holds
 * it (each item with a key of its own), as the API answers and takes it, and the edits a member makes:
 * folders added, renamed, moved, removed; files added where they go, once per room. Pure.
 */

/** Folders nest at most this deep; a room holds at most this many folders and documents. */
export const MAX_DEPTH = 4;
export const MAX_ITEMS = 500;
export const FOLDER_NAME_MAX = 200;

export interface DraftFolder {
  key: string;
  type: 'folder';
  name: string;
  items: DraftItem[];
}

export interface DraftDocument {
  key: string;
  type: 'file';
  fileId: string;
  name: string;
  /** Null until the file's facts are known (a file just added from the picker has them). */
  pageCount: number | null;
}

export type DraftItem = DraftFolder | DraftDocument;

/** A room's item as the API answers it. */
export type StoredItem =
  { type: 'file'; fileId: string; name: string; pageCount: number } | { type: 'folder'; name: string; items: StoredItem[] };

/** An item as the API takes it. */
export type BodyItem = { type: 'file'; file_id: string } | { type: 'folder'; name: string; items: BodyItem[] };

/** A file the picker offers. */
export interface PickableFile {
  id: string;
  name: string;
  pageCount: number;
}

let next = 0;
const newKey = () => `item-${(next += 1)}`;

export function fromStored(items: readonly StoredItem[]): DraftItem[] {
  return items.map((i) =>
    i.type === 'file'
      ? { key: newKey(), type: 'file', fileId: i.fileId, name: i.name, pageCount: i.pageCount }
      : { key: newKey(), type: 'folder', name: i.name, items: fromStored(i.items) },
  );
}

export function toBody(items: readonly DraftItem[]): BodyItem[] {
  return items.map((i) =>
    i.type === 'file' ? { type: 'file', file_id: i.fileId } : { type: 'folder', name: i.name.trim(), items: toBody(i.items) },
  );
}

/** Folders and documents in all. */
export function countItems(items: readonly DraftItem[]): number {
  return items.reduce((n, i) => n + 1 + (i.type === 'folder' ? countItems(i.items) : 0), 0);
}

/** The files already in the tree. */
export function fileIdsOf(items: readonly DraftItem[]): Set<string> {
  const out = new Set<string>();
  const walk = (list: readonly DraftItem[]) => list.forEach((i) => (i.type === 'file' ? out.add(i.fileId) : walk(i.items)));
  walk(items);
  return out;
}

/** A row of the tree as the editor lists it: the item, how deep (1 at the root), its place among its siblings. */
export interface Row {
  item: DraftItem;
  depth: number;
  first: boolean;
  last: boolean;
}

export function rowsOf(items: readonly DraftItem[], depth = 1): Row[] {
  return items.flatMap((item, i) => [
    { item, depth, first: i === 0, last: i === items.length - 1 },
    ...(item.type === 'folder' ? rowsOf(item.items, depth + 1) : []),
  ]);
}

/** The tree with the list that holds `key` (the root's for null) changed by `change`. */
function withList(items: DraftItem[], parent: string | null, change: (list: DraftItem[]) => DraftItem[]): DraftItem[] {
  if (parent === null) return change(items);
  return items.map((i) =>
    i.type !== 'folder' ? i : i.key === parent ? { ...i, items: change(i.items) } : { ...i, items: withList(i.items, parent, change) },
  );
}

/** The key of the folder holding `key` (null: the root), or undefined when there is no such item. */
export function parentOf(items: readonly DraftItem[], key: string, parent: string | null = null): string | null | undefined {
  for (const i of items) {
    if (i.key === key) return parent;
    if (i.type === 'folder') {
      const found = parentOf(i.items, key, i.key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** How deep a folder is (1 at the root); 0 for the root itself (null). */
export function depthOf(items: readonly DraftItem[], key: string | null): number {
  return rowsOf(items).find((r) => r.item.key === key)?.depth ?? 0;
}

/** Whether a folder may be added in `parent` (null: the root): within the depth and the count. */
export function mayAddFolder(items: readonly DraftItem[], parent: string | null): boolean {
  return depthOf(items, parent) < MAX_DEPTH && countItems(items) < MAX_ITEMS;
}

export function addFolder(items: DraftItem[], parent: string | null, name: string): DraftItem[] {
  if (!mayAddFolder(items, parent)) return items;
  return withList(items, parent, (list) => [...list, { key: newKey(), type: 'folder', name, items: [] }]);
}

/** Adds the files not yet in the room, in `parent` (null: the root), as far as the room has room. */
export function addFiles(items: DraftItem[], parent: string | null, files: readonly PickableFile[]): DraftItem[] {
  const present = fileIdsOf(items);
  const fresh = files.filter((f) => !present.has(f.id)).slice(0, Math.max(0, MAX_ITEMS - countItems(items)));
  const docs: DraftItem[] = fresh.map((f) => ({ key: newKey(), type: 'file', fileId: f.id, name: f.name, pageCount: f.pageCount }));
  return docs.length === 0 ? items : withList(items, parent, (list) => [...list, ...docs]);
}

export function rename(items: DraftItem[], key: string, name: string): DraftItem[] {
  return items.map((i) => (i.type !== 'folder' ? i : i.key === key ? { ...i, name } : { ...i, items: rename(i.items, key, name) }));
}

/** Removes an item (a folder with what it holds). */
export function remove(items: DraftItem[], key: string): DraftItem[] {
  return items.filter((i) => i.key !== key).map((i) => (i.type === 'folder' ? { ...i, items: remove(i.items, key) } : i));
}

/** Moves an item one place up (-1) or down (+1) among its siblings. */
export function move(items: DraftItem[], key: string, delta: -1 | 1): DraftItem[] {
  const parent = parentOf(items, key);
  if (parent === undefined) return items;
  return withList(items, parent, (list) => {
    const from = list.findIndex((i) => i.key === key);
    const to = from + delta;
    if (to < 0 || to >= list.length) return list;
    const out = [...list];
    [out[from], out[to]] = [out[to] as DraftItem, out[from] as DraftItem];
    return out;
  });
}

/** What keeps a room from being saved: no name, a folder without a name. */
export function problems(name: string, items: readonly DraftItem[]): ('name' | 'folderName')[] {
  const out: ('name' | 'folderName')[] = [];
  if (name.trim() === '') out.push('name');
  if (rowsOf(items).some((r) => r.item.type === 'folder' && r.item.name.trim() === '')) out.push('folderName');
  return out;
}
