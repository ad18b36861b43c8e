/**
 * The histories' SQL of the record write path (records.service.ts, for ingestion and merges): the
 * inserts of calls, clues and posts, the project of stored ids, a merged customer's calls moved. The
 * reads are in repository.ts and view-logs.repository.ts.
 */
import { type Database, type DatabaseHandle, bulkOps, crossProject, preparedQuery } from '../../db/index.ts';
import { type Insertable, type Kysely, sql } from 'kysely';

type Db = Kysely<Database>;

/** Tables of history records ingestion writes here, in the order it writes them. */
export const RECORD_TABLES = ['clues', 'calls', 'posts'] as const;
export type RecordTable = (typeof RECORD_TABLES)[number];
export type RecordRows = { [T in RecordTable]: Insertable<Database[T]>[] };

/**
 * The project of stored records by id, per table, over every project (ingestion refuses an id another
 * project's record has): one id (which PostgreSQL's reader coalesces with its neighbours) or a list
 * bound as one parameter.
 */
const storedById = (table: RecordTable) => ({
  one: preparedQuery(`ingestStored_${table}`, ({ db }, id: string) =>
    db
      .selectFrom(table as 'calls')
      .select(['id', 'app_id'])
      .where('id', '=', id)
      .modifyEnd(crossProject('ingest-global-ids')),
  ),
  list: preparedQuery(`ingestStoredList_${table}`, ({ db, inList }, ids: string[]) =>
    db
      .selectFrom(table as 'calls')
      .select(['id', 'app_id'])
      .where(inList('id', ids, 'text'))
      .modifyEnd(crossProject('ingest-global-ids')),
  ),
});
const STORED = Object.fromEntries(RECORD_TABLES.map((t) => [t, storedById(t)])) as Record<RecordTable, ReturnType<typeof storedById>>;

/** The writes of ingested history records, in the caller's transaction. */
export function createHistoryWrites(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);
  return {
    /** The rows of one or many batches, table by table in RECORD_TABLES order, one statement per table and chunk. */
    async insert(trx: Db, rows: RecordRows): Promise<void> {
      for (const table of RECORD_TABLES) await bulk.insert(trx, table, rows[table] as Insertable<Database[typeof table]>[]);
    },

    /**
     * Re-points up to `batch` calls of a merged customer to its survivor (by primary key), the call's
     * parties too where they name it (user type 1); returns how many.
     */
    async moveCalls(trx: Db, m: { appId: string; mergedId: string; survivorId: string }, batch: number): Promise<number> {
      const ids = await trx
        .selectFrom('calls')
        .select('id')
        .where('app_id', '=', m.appId)
        .where('customer_id', '=', m.mergedId)
        .limit(batch)
        .execute();
      if (ids.length === 0) return 0;
      const list = ids.map((r) => r.id);
      await trx
        .updateTable('calls')
        .set({
          customer_id: m.survivorId,
          from_user_id: sql<string>`case when from_user_type = 1 and from_user_id = ${m.mergedId} then ${m.survivorId} else from_user_id end`,
          to_user_id: sql<string>`case when to_user_type = 1 and to_user_id = ${m.mergedId} then ${m.survivorId} else to_user_id end`,
        })
        // By primary key, the project checked on the rows found (SQLite would otherwise walk the project's index).
        .where(database.features.projectIs('app_id', m.appId))
        .where(bulk.anyOf('id', list))
        .execute();
      return list.length;
    },

    /** The project of each of these ids that is stored in `table`: one statement for one id, else one per chunk. */
    async storedProjects(table: RecordTable, ids: string[]): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      if (ids.length === 0) return found;
      const q = STORED[table];
      if (ids.length === 1) {
        for (const r of await database.reader.all(q.one, ids[0] as string)) found.set(r.id, r.app_id);
        return found;
      }
      for (const part of bulk.lookupChunks(ids)) for (const r of await database.reader.all(q.list, part)) found.set(r.id, r.app_id);
      return found;
    },
  };
}
