import type { BehaviourLogsTable, BehaviourRollupsTable, Database, DatabaseHandle } from '../../db/index.ts';
import type { Insertable, Kysely } from 'kysely';
import { TEAM_ACTIONS } from './activity-kinds.ts';
import { type MergeMove, createBehaviourRecordWrites } from './records.repository.ts';

export type { MergeMove } from './records.repository.ts';

/**
 * Behaviour records and their overview counters as the write path stores them (ingestion's batches,
 * the viewer's and the site's writes): always inside the caller's transaction, a whole batch (or a
 * whole group of batches) per call, one statement per table and chunk.
 */
export function createBehaviourRecords(database: DatabaseHandle) {
  const writes = createBehaviourRecordWrites(database);
  return {
    /** Stores records (their outbox events are the caller's). */
    insert(trx: Kysely<Database>, rows: Insertable<BehaviourLogsTable>[]): Promise<void> {
      return writes.insertLogs(trx, rows);
    },

    /**
     * Adds rollup counts (already summed per customer, day, kind and key) to the daily rollups, then
     * the same counts to the all-time totals.
     */
    async addCounts(trx: Kysely<Database>, rollups: Insertable<BehaviourRollupsTable>[]): Promise<void> {
      await writes.addRollups(trx, rollups);
      const totals = new Map<string, { app_id: string; customer_id: string; kind: string; key: string; count: number }>();
      for (const r of rollups) {
        const k = `${r.app_id}\u0000${r.customer_id}\u0000${r.kind}\u0000${r.key}`;
        const t = totals.get(k);
        if (t) t.count += Number(r.count);
        else totals.set(k, { app_id: r.app_id, customer_id: r.customer_id, kind: r.kind, key: r.key, count: Number(r.count) });
      }
      await writes.addTotals(trx, [...totals.values()]);
    },

    /**
     * Removes the records Rapport wrote for the team's notes and tasks (member_note, member_task) of
     * these ids, with the note or task they stand for (the tasks module, in its transaction). They are
     * never counted, so no counter changes.
     */
    removeTeamRecords(trx: Kysely<Database>, appId: string, ids: string[]): Promise<number> {
      return writes.deleteLogs(trx, appId, ids, TEAM_ACTIONS);
    },

    /** Re-points up to `batch` records of a merged customer to its survivor; returns how many (the merge job's batches). */
    moveRecords(trx: Kysely<Database>, m: MergeMove, batch: number): Promise<number> {
      return writes.moveLogs(trx, m, batch);
    },

    /** The merged customer's counters (totals, then daily rollups) added to the survivor's and removed, in the caller's transaction. */
    async moveCounters(trx: Kysely<Database>, m: MergeMove): Promise<void> {
      await writes.moveTotals(trx, m);
      await writes.moveRollups(trx, m);
    },

    /**
     * The records of these customers with these actions since `since`, oldest first, at most `limit`,
     * in the caller's transaction (the scoring module's recompute from the records held).
     */
    recordsOf(
      trx: Kysely<Database>,
      q: { appId: string; customerIds: string[]; actions: readonly string[]; since: number; limit: number },
    ) {
      return writes.recordsOf(trx, q);
    },

    /** A project's records with these actions since `since`, oldest first, at most `limit` (a playbook's dry run). */
    projectRecordsSince(q: { appId: string; actions: readonly string[]; since: number; limit: number }) {
      return writes.projectRecordsSince(database.db, q);
    },

    /** The project each of these ids belongs to, for the ids some project's record already has. */
    storedProjects(ids: string[]): Promise<Map<string, string>> {
      return writes.storedProjects(ids);
    },
  };
}

export type BehaviourRecords = ReturnType<typeof createBehaviourRecords>;
