/**
 * The links' SQL of ingestion (the ingest module's write path, for producers' batches and the
 * viewer's beacons and forms): id look-ups of links and view logs, and the writes of links, view
 * logs and their Duration items, in the caller's transaction, one statement per table and chunk.
 * Reached through the links service (`createLinkIngestStore`); it is the ingest module's `LinkStore`.
 */
import { type Database, type DatabaseHandle, type PreparedQuery, bulkOps, crossProject, preparedQuery } from '../../db/index.ts';
import type { Insertable, Kysely, Updateable } from 'kysely';

type Db = Kysely<Database>;

/** The links' tables whose ids ingestion looks up. */
type LookupTable = 'links' | 'link_view_logs';

/**
 * Prepared lookups by id, per table: one id (the common one-record request, which PostgreSQL's
 * reader coalesces with its neighbours) and a list (bound as one parameter). Over every project:
 * an id another project's record has is refused.
 */
const byId = (table: LookupTable) => ({
  one: preparedQuery(`ingestStored_${table}`, ({ db }, id: string) =>
    db
      .selectFrom(table as 'links')
      .select(['id', 'app_id'])
      .where('id', '=', id)
      .modifyEnd(crossProject('ingest-global-ids')),
  ),
  list: preparedQuery(`ingestStoredList_${table}`, ({ db, inList }, ids: string[]) =>
    db
      .selectFrom(table as 'links')
      .select(['id', 'app_id'])
      .where(inList('id', ids, 'text'))
      .modifyEnd(crossProject('ingest-global-ids')),
  ),
});
const STORED: Record<LookupTable, ReturnType<typeof byId>> = { links: byId('links'), link_view_logs: byId('link_view_logs') };

/** Reads rows by ids through the prepared reader: the one-id query for one id, else the list query in chunks. */
async function readByIds<R>(
  database: DatabaseHandle,
  q: { one: PreparedQuery<[id: string], R>; list: PreparedQuery<[ids: string[]], R> },
  ids: string[],
  chunks: (ids: string[]) => string[][],
): Promise<R[]> {
  if (ids.length === 0) return [];
  if (ids.length === 1) return database.reader.all(q.one, ids[0] as string);
  const rows: R[] = [];
  for (const part of chunks(ids)) rows.push(...(await database.reader.all(q.list, part)));
  return rows;
}

/** What ingestion reads and writes of links and their views. */
export function createLinkIngestStore(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);

  return {
    /** The project each of these ids already belongs to, in one table. */
    async storedProjects(table: LookupTable, ids: string[]): Promise<Map<string, string>> {
      const rows = await readByIds(database, STORED[table], ids, (l) => bulk.lookupChunks(l));
      return new Map(rows.map((r) => [r.id, r.app_id]));
    },

    /** Links of the project among these ids, with their tags. */
    async tagsOf(db: Db, appId: string, ids: string[]): Promise<Map<string, string[]>> {
      const found = new Map<string, string[]>();
      for (const part of bulk.lookupChunks(ids)) {
        // By primary key, the project checked on the rows found (projectIs): with a plain `app_id = ?`
        // beside the ids, SQLite (no statistics) would walk the project's whole index instead.
        const rows = await db
          .selectFrom('links')
          .select(['id', 'tags'])
          .where(bulk.anyOf('id', part))
          .where(database.features.projectIs('app_id', appId))
          .execute();
        for (const r of rows) found.set(r.id, r.tags ? (JSON.parse(r.tags) as string[]) : []);
      }
      return found;
    },

    /** Indexes (values of `tokens`) whose share token a stored link already has. */
    async takenShareTokens(db: Db, tokens: Map<string, number>): Promise<number[]> {
      const taken: number[] = [];
      for (const part of bulk.lookupChunks([...tokens.keys()])) {
        // Share tokens make link URLs: unique across projects.
        const rows = await db
          .selectFrom('links')
          .select('share_token')
          .where(bulk.anyOf('share_token', part))
          .modifyEnd(crossProject('ingest-global-ids'))
          .execute();
        for (const r of rows) taken.push(tokens.get(r.share_token) as number);
      }
      return taken;
    },

    /** The links, view logs and their Duration items of one or many batches, table by table in this order. */
    async insert(
      trx: Db,
      rows: {
        links: Insertable<Database['links']>[];
        link_view_logs: Insertable<Database['link_view_logs']>[];
        link_view_durations: Insertable<Database['link_view_durations']>[];
      },
    ): Promise<void> {
      await bulk.insert(trx, 'links', rows.links);
      await bulk.insert(trx, 'link_view_logs', rows.link_view_logs);
      await bulk.insert(trx, 'link_view_durations', rows.link_view_durations);
    },

    /** Moves a view log on if its last beacon is still `fromSeq`: its new state, and the Duration items upserted at their positions. */
    async progressView(
      trx: Db,
      p: {
        appId: string;
        viewLogId: string;
        fromSeq: number;
        set: Updateable<Database['link_view_logs']>;
        durations: Insertable<Database['link_view_durations']>[];
      },
    ): Promise<boolean> {
      const res = await trx
        .updateTable('link_view_logs')
        .set(p.set)
        .where('app_id', '=', p.appId)
        .where('id', '=', p.viewLogId)
        .where('beacon_seq', '=', p.fromSeq)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      for (const d of p.durations) {
        await trx
          .insertInto('link_view_durations')
          .values(d)
          .onConflict((oc) =>
            oc.columns(['app_id', 'link_view_log_id', 'position']).doUpdateSet({
              duration: d.duration,
              ended_at: d.ended_at,
              total: d.total,
              file_url: d.file_url,
              file_name: d.file_name,
            }),
          )
          .execute();
      }
      return true;
    },

    /** The form record filled while viewing: the view log's clue. */
    async setViewClue(trx: Db, c: { appId: string; viewLogId: string; clueId: string; email?: string | null }): Promise<void> {
      const email = c.email ?? null;
      await trx
        .updateTable('link_view_logs')
        .set((eb) => ({ clue_id: c.clueId, ...(email === null ? {} : { reader_email: eb.fn.coalesce('reader_email', eb.val(email)) }) }))
        .where('app_id', '=', c.appId)
        .where('id', '=', c.viewLogId)
        .execute();
    },

    /** View logs a visitor made before a customer was known, now that customer's (those still without one). */
    async attributeViews(
      trx: Db,
      a: { appId: string; viewLogIds: string[]; customerId: string; viewerName: string | null },
    ): Promise<void> {
      for (const part of bulk.lookupChunks(a.viewLogIds)) {
        await trx
          .updateTable('link_view_logs')
          .set({ customer_id: a.customerId, viewer_id: a.customerId, viewer_name: a.viewerName })
          .where('app_id', '=', a.appId)
          .where(bulk.anyOf('id', part))
          .where('customer_id', 'is', null)
          .execute();
      }
    },
  };
}
