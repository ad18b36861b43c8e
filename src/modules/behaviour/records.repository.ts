/**
 * The behaviour module's SQL of the record write path ingestion and merges use (records.service.ts):
 * records inserted, rollups and totals added to, a merged customer's records and counters moved, the
 * project of stored record ids. The reads, and the customers module's first records, are in
 * repository.ts.
 */
import {
  type BehaviourLogsTable,
  type BehaviourRollupsTable,
  type BehaviourTotalsTable,
  type Database,
  type DatabaseHandle,
  bulkOps,
  customerMoves,
  crossProject,
  preparedQuery,
} from '../../db/index.ts';
import type { Insertable, Kysely } from 'kysely';

/**
 * The project of stored behaviour records by id, over every project (ingestion refuses an id another
 * project's record has): one id (which PostgreSQL's reader coalesces with its neighbours) or a list
 * bound as one parameter.
 */
const storedOne = preparedQuery('ingestStored_behaviour_logs', ({ db }, id: string) =>
  db.selectFrom('behaviour_logs').select(['id', 'app_id']).where('id', '=', id).modifyEnd(crossProject('ingest-global-ids')),
);
const storedList = preparedQuery('ingestStoredList_behaviour_logs', ({ db, inList }, ids: string[]) =>
  db
    .selectFrom('behaviour_logs')
    .select(['id', 'app_id'])
    .where(inList('id', ids, 'text'))
    .modifyEnd(crossProject('ingest-global-ids')),
);

/** Rows sorted by their key columns (plain code-unit order; any fixed order serves). */
function byKey<T>(rows: T[], key: (r: T) => string[]): T[] {
  const keyed = rows.map((r) => ({ r, k: key(r) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < a.k.length; i += 1) {
      const x = a.k[i] as string;
      const y = b.k[i] as string;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
  return keyed.map((e) => e.r);
}

/** A merged customer whose history moves to its survivor (ADR 0027). */
export interface MergeMove {
  appId: string;
  mergedId: string;
  survivorId: string;
}

/** The writes of behaviour records and their counters, in the caller's transaction (ingestion's write path). */
export function createBehaviourRecordWrites(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);
  const moves = customerMoves(database.features);
  return {
    /** Records, one statement per chunk. */
    insertLogs(trx: Kysely<Database>, rows: Insertable<BehaviourLogsTable>[]): Promise<void> {
      return bulk.insert(trx, 'behaviour_logs', rows);
    },

    /**
     * Adds counts to the rollups, already aggregated per key. Rows go in key order: concurrent
     * batches then lock shared rows in the same order (PostgreSQL: waits, never a deadlock), and
     * the index is walked forwards.
     */
    addRollups(trx: Kysely<Database>, rows: Insertable<BehaviourRollupsTable>[]): Promise<void> {
      const sorted = byKey(rows, (r) => [r.app_id, r.customer_id, r.day, r.kind, r.key]);
      return bulk.insertOrAdd(trx, 'behaviour_rollups', sorted, ['app_id', 'customer_id', 'day', 'kind', 'key'], 'count');
    },

    /** Adds counts to the all-time totals (one row per customer × kind × key), in key order. */
    addTotals(trx: Kysely<Database>, rows: Insertable<BehaviourTotalsTable>[]): Promise<void> {
      const sorted = byKey(rows, (r) => [r.app_id, r.customer_id, r.kind, r.key]);
      return bulk.insertOrAdd(trx, 'behaviour_totals', sorted, ['app_id', 'customer_id', 'kind', 'key'], 'count');
    },

    /** Re-points up to `batch` records of a merged customer to its survivor (by primary key); returns how many. */
    /** Deletes the project's records of these ids whose action is one of `actions`; returns how many. */
    async deleteLogs(trx: Kysely<Database>, appId: string, ids: string[], actions: readonly string[]): Promise<number> {
      if (ids.length === 0) return 0;
      const r = await trx
        .deleteFrom('behaviour_logs')
        .where('app_id', '=', appId)
        .where(bulk.anyOf('id', ids))
        .where('action', 'in', [...actions])
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    moveLogs: (trx: Kysely<Database>, m: MergeMove, batch: number): Promise<number> => moves.moveBatch(trx, 'behaviour_logs', m, batch),

    /** The merged customer's all-time totals added to the survivor's (in key order, a statement per chunk) and removed. */
    async moveTotals(trx: Kysely<Database>, m: MergeMove): Promise<void> {
      const totals = await trx
        .selectFrom('behaviour_totals')
        .select(['kind', 'key', 'count'])
        .where('app_id', '=', m.appId)
        .where('customer_id', '=', m.mergedId)
        .execute();
      if (totals.length === 0) return;
      const rows = totals.map((t) => ({ app_id: m.appId, customer_id: m.survivorId, kind: t.kind, key: t.key, count: Number(t.count) }));
      rows.sort((a, b) => (a.kind + '\u0000' + a.key < b.kind + '\u0000' + b.key ? -1 : 1));
      for (const part of bulk.lookupChunks(rows)) {
        await bulk.insertOrAdd(trx, 'behaviour_totals', part, ['app_id', 'customer_id', 'kind', 'key'], 'count');
      }
      await trx.deleteFrom('behaviour_totals').where('app_id', '=', m.appId).where('customer_id', '=', m.mergedId).execute();
    },

    /** The merged customer's daily rollups added to the survivor's (in key order, a statement per chunk) and removed. */
    async moveRollups(trx: Kysely<Database>, m: MergeMove): Promise<void> {
      const rollups = await trx
        .selectFrom('behaviour_rollups')
        .select(['day', 'kind', 'key', 'count'])
        .where('app_id', '=', m.appId)
        .where('customer_id', '=', m.mergedId)
        .execute();
      if (rollups.length === 0) return;
      const rows = rollups.map((t) => ({
        app_id: m.appId,
        customer_id: m.survivorId,
        day: t.day,
        kind: t.kind,
        key: t.key,
        count: Number(t.count),
      }));
      const k = (r: (typeof rows)[number]) => `${r.day}\u0000${r.kind}\u0000${r.key}`;
      rows.sort((a, b) => (k(a) < k(b) ? -1 : 1));
      for (const part of bulk.lookupChunks(rows)) {
        await bulk.insertOrAdd(trx, 'behaviour_rollups', part, ['app_id', 'customer_id', 'day', 'kind', 'key'], 'count');
      }
      await trx.deleteFrom('behaviour_rollups').where('app_id', '=', m.appId).where('customer_id', '=', m.mergedId).execute();
    },

    /**
     * The project's records of these customers with these actions since `since` (epoch ms, their own
     * time), oldest first, at most `limit`: one walk of behaviour_customer_when_idx per customer.
     */
    /** A project's records with these actions since `since`, oldest first, at most `limit` (a playbook's dry run). */
    projectRecordsSince(
      db: Kysely<Database>,
      q: { appId: string; actions: readonly string[]; since: number; limit: number },
    ): Promise<Pick<BehaviourLogsTable, 'id' | 'customer_id' | 'action' | 'when_at' | 'created_at' | 'content'>[]> {
      if (q.actions.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('behaviour_logs')
        .select(['id', 'customer_id', 'action', 'when_at', 'created_at', 'content'])
        .where('app_id', '=', q.appId)
        .where('action', 'in', [...q.actions])
        .where('when_at', '>=', q.since)
        .orderBy('when_at')
        .orderBy('id')
        .limit(q.limit)
        .execute();
    },

    recordsOf(
      trx: Kysely<Database>,
      q: { appId: string; customerIds: string[]; actions: readonly string[]; since: number; limit: number },
    ): Promise<Pick<BehaviourLogsTable, 'id' | 'customer_id' | 'action' | 'when_at' | 'created_at' | 'content'>[]> {
      if (q.customerIds.length === 0) return Promise.resolve([]);
      return trx
        .selectFrom('behaviour_logs')
        .select(['id', 'customer_id', 'action', 'when_at', 'created_at', 'content'])
        .where('app_id', '=', q.appId)
        .where(bulk.anyOf('customer_id', q.customerIds))
        .where('when_at', '>=', q.since)
        .where('action', 'in', [...q.actions])
        .orderBy('when_at')
        .orderBy('id')
        .limit(q.limit)
        .execute();
    },

    /** The project of each of these record ids that is stored: one statement for one id, else one per chunk. */
    async storedProjects(ids: string[]): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      if (ids.length === 0) return found;
      if (ids.length === 1) {
        for (const r of await database.reader.all(storedOne, ids[0] as string)) found.set(r.id, r.app_id);
        return found;
      }
      for (const part of bulk.lookupChunks(ids)) for (const r of await database.reader.all(storedList, part)) found.set(r.id, r.app_id);
      return found;
    },
  };
}
