import type { Database, DatabaseHandle } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import { type RecordRows, type RecordTable, createHistoryWrites } from './records.repository.ts';

export type { RecordRows as HistoryRecordRows, RecordTable as HistoryRecordTable } from './records.repository.ts';

/**
 * Calls, clues and Post records as the write path stores them (ingestion's batches, the viewer's
 * forms, campaigns through ingestion): inside the caller's transaction, whole batches at a time.
 */
export function createHistoryRecords(database: DatabaseHandle) {
  const writes = createHistoryWrites(database);
  return {
    /** Stores the rows of one or many batches: clues, calls, then posts, one statement per table and chunk. */
    insert(trx: Kysely<Database>, rows: RecordRows): Promise<void> {
      return writes.insert(trx, rows);
    },

    /** Re-points up to `batch` calls of a merged customer to its survivor; returns how many (the merge job's batches). */
    moveCalls(trx: Kysely<Database>, m: { appId: string; mergedId: string; survivorId: string }, batch: number): Promise<number> {
      return writes.moveCalls(trx, m, batch);
    },

    /** The project each of these ids belongs to in `table`, for the ids some project's record already has. */
    storedProjects(table: RecordTable, ids: string[]): Promise<Map<string, string>> {
      return writes.storedProjects(table, ids);
    },
  };
}

export type HistoryRecords = ReturnType<typeof createHistoryRecords>;
