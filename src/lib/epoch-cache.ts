import type { ChangeTopic } from '../db/change-epoch.ts';
import type { ChangeEpoch } from '../db/prepared.ts';

/**
 * An in-process cache that is emptied whenever the database's change epoch moves (issue 7: the
 * token → user and membership lookups every request makes). It never serves a value older than
 * the last commit its epoch has seen:
 *
 *   const e = cache.epoch();            // before the read
 *   let v = cache.get(key, e);
 *   if (v === undefined) cache.set(key, (v = await read()), e);
 *
 * A value read while a commit lands is stored under the epoch taken before the read, which the
 * commit has already moved on from, so the next `get` drops it.
 */
export class EpochCache<K, V> {
  private seen: number | null = null;
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly changeEpoch: ChangeEpoch,
    private readonly topic: ChangeTopic,
    private readonly maxEntries = 10_000,
  ) {}

  epoch(): number | null {
    return this.changeEpoch(this.topic);
  }

  get(key: K, epoch: number | null): V | undefined {
    if (epoch === null) return undefined;
    if (epoch !== this.seen) {
      this.entries.clear();
      this.seen = epoch;
      return undefined;
    }
    return this.entries.get(key);
  }

  set(key: K, value: V, epoch: number | null): void {
    if (epoch === null || epoch !== this.seen) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }
}
