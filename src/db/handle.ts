import type { Kysely } from 'kysely';
import type { ReadCache } from './cache.ts';
import type { ChangeTopic } from './change-epoch.ts';
import type { DialectFeatures } from './dialect.ts';
import type { DatabaseStats } from './observer.ts';
import type { CommitGroup, CommitGroupOptions, GroupWriter } from './group-commit.ts';
import type { PreparedReader } from './prepared.ts';
import type { Database } from './schema.ts';

/**
 * An open database: what repositories get. Everything that exists only to be fast sits behind
 * these few members: prepared reads (`reader`), and in-process caches invalidated by commits
 * (`cache`).
 */
export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly features: DialectFeatures;
  /** Short description for logs, never containing credentials. */
  readonly description: string;
  /** Prepared reads of committed data, outside any transaction (hot paths; see prepared.ts). */
  readonly reader: PreparedReader;
  /** The same prepared reads through another executor: a transaction, for reads that belong to a write. */
  readerFor(executor: Kysely<Database>): PreparedReader;
  /**
   * The in-process cache named `name` (one per name and handle), emptied by every commit to the
   * tables of `topic` in any process (cache.ts, change-epoch.ts).
   */
  cache<K, V>(name: string, topic: ChangeTopic, maxEntries?: number): ReadCache<K, V>;
  /**
   * A group commit for small writes (group-commit.ts): jobs submitted at about the same time are
   * written by `write` in one transaction. Options default to the dialect's (`GROUP_COMMIT`).
   */
  commitGroup<J>(write: GroupWriter<J>, options?: Partial<CommitGroupOptions>): CommitGroup<J>;
  /** Resolves when the database answers a trivial read (health checks). */
  ping(): Promise<void>;
  /** Names of this build's migrations that the database has not applied (readiness). */
  pendingMigrations(): Promise<string[]>;
  /** Pools and queues, for metrics. */
  stats(): DatabaseStats;
  /** Waits for every group commit's queue to be written, then closes. */
  close(): Promise<void>;
}
