import type { ChangeTopic } from './change-epoch.ts';

/**
 * A number per topic that changes whenever data of the topic's tables could have changed, or null
 * while that cannot be known (then nothing may be cached). See change-epoch.ts.
 */
export type ChangeEpoch = (topic: ChangeTopic) => number | null;

/** A view of a cache fixed at the epoch it was taken at: what is stored through it is dropped if a commit landed since. */
export interface CacheSnapshot<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
}

/**
 * An in-process cache of values read from one topic's tables, emptied whenever a commit (in any
 * process) changes those tables. It never serves a value older than the last commit its epoch has
 * seen: a value read while a commit lands is kept under the epoch taken before the read, which
 * the commit has already moved on from, so it is dropped.
 */
export interface ReadCache<K, V> {
  /** The cached value for `key`, else `load()`'s, kept unless it is undefined. */
  get(key: K, load: () => Promise<V>): Promise<V>;
  /** For values built from earlier ones (page anchors): take it BEFORE the reads the values come from. */
  snapshot(): CacheSnapshot<K, V>;
}

class EpochCache<K, V> implements ReadCache<K, V> {
  private seen: number | null = null;
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly changeEpoch: ChangeEpoch,
    private readonly topic: ChangeTopic,
    private readonly maxEntries: number,
  ) {}

  private lookup(key: K, epoch: number | null): V | undefined {
    if (epoch === null) return undefined;
    if (epoch !== this.seen) {
      this.entries.clear();
      this.seen = epoch;
      return undefined;
    }
    return this.entries.get(key);
  }

  private store(key: K, value: V, epoch: number | null): void {
    if (epoch === null || epoch !== this.seen) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }

  async get(key: K, load: () => Promise<V>): Promise<V> {
    const epoch = this.changeEpoch(this.topic);
    const cached = this.lookup(key, epoch);
    if (cached !== undefined) return cached;
    const value = await load();
    if (value !== undefined) this.store(key, value, epoch);
    return value;
  }

  snapshot(): CacheSnapshot<K, V> {
    const epoch = this.changeEpoch(this.topic);
    return { get: (key) => this.lookup(key, epoch), set: (key, value) => this.store(key, value, epoch) };
  }
}

/** The caches of one database handle, by name: each repository asks for its own by a fixed name. */
export function cacheRegistry(changeEpoch: ChangeEpoch) {
  const caches = new Map<string, EpochCache<unknown, unknown>>();
  return <K, V>(name: string, topic: ChangeTopic, maxEntries = 10_000): ReadCache<K, V> => {
    let cache = caches.get(name);
    if (cache === undefined) caches.set(name, (cache = new EpochCache(changeEpoch, topic, maxEntries)));
    return cache as unknown as ReadCache<K, V>;
  };
}
