import { type PreparedQuery, type Database, type DatabaseHandle, bulkOps, crossProject, preparedQuery } from '../../db/index.ts';
import type { Insertable, Kysely, Updateable } from 'kysely';

type Db = Kysely<Database>;

/** Tables of ingested records whose id look-ups are here (the other record tables' are their owners'). */
export type LookupTable = 'customers' | 'links' | 'link_view_logs';

const LOOKUP_TABLES: readonly LookupTable[] = ['customers', 'links', 'link_view_logs'];

/**
 * Prepared lookups by id, per table: one id (the common one-record request, which PostgreSQL's
 * reader coalesces with its neighbours) and a list (bound as one parameter). Over every project:
 * an id another project's record has is refused.
 */
const byId = (table: LookupTable) => ({
  one: preparedQuery(`ingestStored_${table}`, ({ db }, id: string) =>
    db
      .selectFrom(table as 'customers')
      .select(['id', 'app_id'])
      .where('id', '=', id)
      .modifyEnd(crossProject('ingest-global-ids')),
  ),
  list: preparedQuery(`ingestStoredList_${table}`, ({ db, inList }, ids: string[]) =>
    db
      .selectFrom(table as 'customers')
      .select(['id', 'app_id'])
      .where(inList('id', ids, 'text'))
      .modifyEnd(crossProject('ingest-global-ids')),
  ),
});
const STORED = Object.fromEntries(LOOKUP_TABLES.map((t) => [t, byId(t)])) as Record<LookupTable, ReturnType<typeof byId>>;

const customerOne = preparedQuery('ingestCustomer', ({ db, projectIs }, appId: string, id: string) =>
  db.selectFrom('customers').select(['id', 'owner_id', 'merged_customer_id']).where('id', '=', id).where(projectIs('app_id', appId)),
);
const customerList = preparedQuery('ingestCustomers', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  // By primary key, the project checked on the rows found (projectIs): with a plain `app_id = ?`
  // beside the ids, SQLite (no statistics) walked the project's whole customer index instead, every
  // batch: 1M customers made a 1000-record batch cost ~300 ms instead of ~50 (measured on the bench's dataset).
  db
    .selectFrom('customers')
    .select(['id', 'owner_id', 'merged_customer_id'])
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);

/** Reads rows by ids through the prepared reader: the one-id query for one id, else the list query in chunks. */
async function readByIds<R>(
  database: DatabaseHandle,
  one: PreparedQuery<[id: string], R>,
  list: PreparedQuery<[ids: string[]], R>,
  ids: string[],
  chunks: (ids: string[]) => string[][],
): Promise<R[]> {
  if (ids.length === 0) return [];
  if (ids.length === 1) return database.reader.all(one, ids[0] as string);
  const rows: R[] = [];
  for (const part of chunks(ids)) rows.push(...(await database.reader.all(list, part)));
  return rows;
}

/** SQL of ingestion: reference look-ups, and the writes of links and their views (one statement per table and chunk). */
export function createIngestRepository(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);

  return {
    /** The links, view logs and their Duration items of one or many batches, table by table in this order. */
    async insertLinkRows(
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
    async setViewClue(trx: Db, c: { appId: string; viewLogId: string; clueId: string }): Promise<void> {
      await trx
        .updateTable('link_view_logs')
        .set({ clue_id: c.clueId })
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

    /** The project each of these ids already belongs to, in one table. */
    async existing(table: LookupTable, ids: string[]): Promise<Map<string, string>> {
      const rows = await readByIds(database, STORED[table].one, STORED[table].list, ids, (l) => bulk.lookupChunks(l));
      return new Map(rows.map((r) => [r.id, r.app_id]));
    },

    /**
     * Customers of the project (live, deleted or merged) among these ids, with their owner and, for a
     * merged one, the customer it was merged into.
     */
    async customers(appId: string, ids: string[]): Promise<Map<string, { owner_id: number; merged_customer_id: string | null }>> {
      const found = new Map<string, { owner_id: number; merged_customer_id: string | null }>();
      if (ids.length === 0) return found;
      const keep = (r: { id: string; owner_id: number; merged_customer_id: string | null }) =>
        found.set(r.id, { owner_id: r.owner_id, merged_customer_id: r.merged_customer_id });
      if (ids.length === 1) {
        for (const r of await database.reader.all(customerOne, appId, ids[0] as string)) keep(r);
        return found;
      }
      for (const part of bulk.lookupChunks(ids)) {
        for (const r of await database.reader.all(customerList, appId, part)) keep(r);
      }
      return found;
    },

    /** Links of the project among these ids, with their tags. */
    async links(db: Db, appId: string, ids: string[]): Promise<Map<string, string[]>> {
      const found = new Map<string, string[]>();
      for (const part of bulk.lookupChunks(ids)) {
        // By primary key, as customers() above.
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
  };
}
