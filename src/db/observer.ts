/** What the database tells metrics: events as they happen (DatabaseObserver), state when asked (DatabaseStats). */
import type { KyselyConfig } from 'kysely';
import type { PreparedReader } from './prepared.ts';

/**
 * What the database reports about its own work, for metrics (src/metrics implements it). Each call
 * is cheap and never throws; `NO_DATABASE_OBSERVER` ignores everything.
 */
export interface DatabaseObserver {
  /** A statement ran: through Kysely (`query`: writes, transactions) or the prepared reader (`read`). */
  statement(kind: 'query' | 'read', seconds: number): void;
  /** A group commit wrote `jobs` requests' `records` records in one transaction. */
  groupCommitted(jobs: number, records: number, seconds: number): void;
  /** A group commit's queue was full: a request was refused. */
  groupRefused(): void;
  /** The write path ran ANALYZE on a table (PostgreSQL; planner-statistics.ts). */
  statisticsGathered(table: string, outcome: 'ok' | 'failed'): void;
}

export const NO_DATABASE_OBSERVER: DatabaseObserver = {
  statement: () => {},
  groupCommitted: () => {},
  groupRefused: () => {},
  statisticsGathered: () => {},
};

/** A connection pool's state (PostgreSQL; SQLite has none). */
export interface PoolStats {
  /** `write` (Kysely: writes and transactions) or `read` (prepared reads). */
  readonly name: string;
  readonly max: number;
  /** Connections open. */
  readonly total: number;
  readonly idle: number;
  /** Callers waiting for a connection. */
  readonly waiting: number;
}

/** A snapshot of the handle's queues and pools, read when metrics are collected. */
export interface DatabaseStats {
  readonly pools: readonly PoolStats[];
  /** Records waiting for a group commit, over every group. */
  readonly queuedRecords: number;
}

/** The reader, with each read's time (the wait for a coalesced statement included) told to the observer. */
export function timedReader(reader: PreparedReader, observer: DatabaseObserver): PreparedReader {
  if (observer === NO_DATABASE_OBSERVER) return reader;
  return {
    async all(q, ...args) {
      const started = performance.now();
      try {
        return await reader.all(q, ...args);
      } finally {
        observer.statement('read', (performance.now() - started) / 1000);
      }
    },
    async first(q, ...args) {
      const started = performance.now();
      try {
        return await reader.first(q, ...args);
      } finally {
        observer.statement('read', (performance.now() - started) / 1000);
      }
    },
  };
}

/** Kysely's `log` option: every statement's time, told to the observer. */
export function statementLog(observer: DatabaseObserver): KyselyConfig['log'] {
  if (observer === NO_DATABASE_OBSERVER) return undefined;
  return (event) => observer.statement('query', event.queryDurationMillis / 1000);
}
