import type { ChangeEpoch } from '../../db/prepared.ts';
import { EpochCache } from '../../lib/epoch-cache.ts';

/** The list key (updated_at, id) of the row just before position `offset` of a list. */
export interface Anchor {
  offset: number;
  updatedAt: number;
  id: string;
}

const MAX_ANCHORS_PER_LIST = 1024;
const MAX_LISTS = 1000;

/**
 * Where served pages of a customer list ended (issue 7). `start_index` paging makes the database
 * walk every row before the page: page N of a sequential crawl costs N pages, and the deep page
 * (start_index 500,000) walked half a million index entries per request. Each page served leaves
 * an anchor (the key of its last row and the position after it); a later request seeks to the
 * nearest anchor at or before its start_index and walks only the rest. Positions shift whenever
 * any customer is written, so the anchors live under the `customers` change epoch and are dropped
 * by the next such commit in any process: an anchor never points at a stale position.
 */
export class PageAnchors {
  private readonly cache: EpochCache<string, Anchor[]>;

  constructor(changeEpoch: ChangeEpoch) {
    this.cache = new EpochCache(changeEpoch, 'customers', MAX_LISTS);
  }

  /** The epoch to hand back to `record`, taken before the page is read. */
  epoch(): number | null {
    return this.cache.epoch();
  }

  /** The nearest anchor at or before `offset` in this list, if any. */
  nearest(list: string, offset: number, epoch: number | null): Anchor | undefined {
    const anchors = this.cache.get(list, epoch);
    if (anchors === undefined) return undefined;
    let lo = 0;
    let hi = anchors.length - 1;
    let best: Anchor | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const a = anchors[mid] as Anchor;
      if (a.offset <= offset) {
        best = a;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  }

  /** Remembers that the row `last` stands at position `offset - 1` of this list. */
  record(list: string, anchor: Anchor, epoch: number | null): void {
    if (anchor.offset <= 0) return;
    const current = this.cache.get(list, epoch);
    const anchors = current === undefined ? [] : [...current];
    const i = anchors.findIndex((a) => a.offset >= anchor.offset);
    if (i >= 0 && anchors[i]?.offset === anchor.offset) return;
    anchors.splice(i < 0 ? anchors.length : i, 0, anchor);
    // Thinned evenly when full: still at most twice as far from any position as before.
    const kept = anchors.length > MAX_ANCHORS_PER_LIST ? anchors.filter((_, j) => j % 2 === 0) : anchors;
    this.cache.set(list, kept, epoch);
  }
}
