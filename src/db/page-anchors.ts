import type { ReadCache } from './cache.ts';

/** The list key of the row just before position `offset` of a list. */
export interface Anchor<K> {
  offset: number;
  key: K;
}

const MAX_ANCHORS_PER_LIST = 1024;

/** How one list's pages are read: from a position, or a number of rows past an anchor's key. */
export interface AnchoredList<R, K> {
  /** `limit` rows from position `offset`. */
  from(offset: number, limit: number): Promise<R[]>;
  /** `limit` rows, skipping `offset` rows after the row whose list key is `key`. */
  after(key: K, offset: number, limit: number): Promise<R[]>;
  /** A row's list key. */
  keyOf(row: R): K;
}

/**
 * One page of an offset-paged list, read from the nearest anchor. Offset paging makes the database
 * walk every row before the page: page N of a sequential crawl costs N pages, and a deep page
 * (offset 500,000) walks half a million index entries per request. Each page served leaves an
 * anchor (the key of its last row and the position after it); a later request seeks to the nearest
 * anchor at or before its offset and walks only the rest. Positions shift whenever a row of the list
 * is written, so the anchors live in a cache that such a commit empties (in any process): an anchor
 * never points at a stale position.
 */
export async function anchoredPage<R, K>(
  anchors: ReadCache<string, Anchor<K>[]>,
  list: string,
  offset: number,
  limit: number,
  read: AnchoredList<R, K>,
): Promise<R[]> {
  // Taken before the read: anchors recorded from it are dropped if a commit lands meanwhile.
  const snapshot = anchors.snapshot();
  const from = nearest(snapshot.get(list), offset);
  // A page after the start is read with the row before it, whose key anchors the page's own
  // start (the same page asked again seeks straight to it); its last row anchors the next page.
  const before = offset > 0 && from?.offset !== offset ? 1 : 0;
  const rows = from
    ? await read.after(from.key, offset - from.offset - before, limit + before)
    : await read.from(offset - before, limit + before);
  const page = rows.slice(before);
  const record = (anchor: Anchor<K>) => {
    if (anchor.offset <= 0) return;
    const kept = insert(snapshot.get(list) ?? [], anchor);
    if (kept) snapshot.set(list, kept);
  };
  const first = before === 1 ? rows[0] : undefined;
  if (first !== undefined && page.length > 0) record({ offset, key: read.keyOf(first) });
  const last = page[page.length - 1];
  if (last !== undefined) record({ offset: offset + page.length, key: read.keyOf(last) });
  return page;
}

/** The nearest anchor at or before `offset`, if any (anchors are sorted by offset). */
function nearest<K>(anchors: Anchor<K>[] | undefined, offset: number): Anchor<K> | undefined {
  if (anchors === undefined) return undefined;
  let lo = 0;
  let hi = anchors.length - 1;
  let best: Anchor<K> | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const a = anchors[mid] as Anchor<K>;
    if (a.offset <= offset) {
      best = a;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** A new sorted list with the anchor in it, or null when one at that offset is there already. */
function insert<K>(current: Anchor<K>[], anchor: Anchor<K>): Anchor<K>[] | null {
  const i = current.findIndex((a) => a.offset >= anchor.offset);
  if (i >= 0 && current[i]?.offset === anchor.offset) return null;
  const anchors = [...current];
  anchors.splice(i < 0 ? anchors.length : i, 0, anchor);
  // Thinned evenly when full: still at most twice as far from any position as before.
  return anchors.length > MAX_ANCHORS_PER_LIST ? anchors.filter((_, j) => j % 2 === 0) : anchors;
}
