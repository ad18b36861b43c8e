/**
 * Values computed once per key and kept for the next caller, at most `limit` of them: when full, the
 * oldest entry goes. For answers that depend on their key only (a User-Agent's description, a
 * signature already checked, a statement text per shape), asked again and again with the same keys.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();
  constructor(private readonly limit: number) {}

  /** The value kept for `key`, or undefined. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.limit && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }

  /** The value kept for `key`, else `build()`'s, kept. */
  get(key: K, build: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = build();
      this.set(key, value);
    }
    return value;
  }
}
