import {
  type PreparedReader,
  type QueryScope,
  jsonRowsReader,
  preparedQuery,
  type CallsTable,
  type CustomersTable,
  type LinkViewDurationsTable,
  type LinkViewLogsTable,
  type Database,
  type DatabaseHandle,
  bulkOps,
  crossProject,
} from '../../db/index.ts';
import { type Insertable, type Kysely, type RawBuilder, type SelectQueryBuilder, type Selectable, sql } from 'kysely';

type Db = Kysely<Database>;

/** The counters of a Post record (a mass e-mail send) its sender moves. */
export type PostCounter =
  | 'success_log_count'
  | 'view_log_count'
  | 'view_log_user_count'
  | 'link_view_log_count'
  | 'link_view_log_user_count'
  | 'return_log_count'
  | 'return_log_user_count';

/** The customer columns a call or link shows (toCallCustomer, toLinkCustomer). */
const customerColumns = [
  'id',
  'app_id',
  'owner_id',
  'name',
  'title',
  'email',
  'phone',
  'company',
  'status',
  'merged_customer_id',
  'headportrait_url',
  'group_id',
  'sex',
  'address',
  'age_state',
  'fixed_phone',
  'created_at',
  'updated_at',
] as const;

export type CustomerRow = Pick<Selectable<CustomersTable>, (typeof customerColumns)[number]>;

/** Call duration buckets of `time_range_type` (seconds, lower bound inclusive). */
export const DURATION_BUCKETS: Record<number, [number, number | null]> = {
  1: [0, 60],
  2: [60, 300],
  3: [300, 900],
  4: [900, null],
};

export interface CallFilter {
  appId: string;
  /** Caller or receiver (a platform user id). */
  userId: number | null;
  callStatus: number | undefined;
  bucket: [number, number | null] | undefined;
}

type CallRow = Selectable<CallsTable>;

/** A customer column as it rides along a call row. */
type Prefixed<R> = { [K in keyof R as `cu_${K & string}`]: R[K] | null };
export type CallWithCustomer = CallRow & Prefixed<CustomerRow>;

/**
 * A page of calls with the columns its customer shows (same project), in one statement: the
 * page is a subquery, so rows skipped by the offset are never joined.
 */
function withCallCustomer(db: Db, page: SelectQueryBuilder<Database, 'calls', CallRow>) {
  return db
    .selectFrom(page.as('k'))
    .leftJoin('customers as c', (j) => j.onRef('c.id', '=', 'k.customer_id').onRef('c.app_id', '=', 'k.app_id'))
    .selectAll('k')
    .select(customerColumns.map((c) => sql.ref(`c.${c}`).as(`cu_${c}`)))
    .orderBy('k.call_time', 'desc')
    .orderBy('k.id', 'desc') as unknown as SelectQueryBuilder<Database, 'calls', CallWithCustomer>;
}

/** The customer of a call row from withCallCustomer, if it has one in the project. */
export function callCustomer(r: CallWithCustomer): CustomerRow | undefined {
  if (r.cu_id === null) return undefined;
  // One object literal (every row of a calls page goes through here); \`satisfies\` keeps it in step with customerColumns.
  return {
    id: r.cu_id,
    app_id: r.cu_app_id,
    owner_id: r.cu_owner_id,
    name: r.cu_name,
    title: r.cu_title,
    email: r.cu_email,
    phone: r.cu_phone,
    company: r.cu_company,
    status: r.cu_status,
    merged_customer_id: r.cu_merged_customer_id,
    headportrait_url: r.cu_headportrait_url,
    group_id: r.cu_group_id,
    sex: r.cu_sex,
    address: r.cu_address,
    age_state: r.cu_age_state,
    fixed_phone: r.cu_fixed_phone,
    created_at: r.cu_created_at,
    updated_at: r.cu_updated_at,
  } satisfies Record<(typeof customerColumns)[number], unknown> as CustomerRow;
}

const callsPage = (db: Db, appId: string) => db.selectFrom('calls').selectAll().where('app_id', '=', appId);
const callsAll = preparedQuery('callsAll', ({ db }, appId: string, offset: number, limit: number) =>
  withCallCustomer(db, callsPage(db, appId).orderBy('call_time', 'desc').orderBy('id', 'desc').offset(offset).limit(limit)),
);
// Reads by id list find their rows by primary key; the project condition is checked on the rows
// found (DialectFeatures.projectIs).
const customersIn = preparedQuery('historyCustomersIn', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  db
    .selectFrom('customers')
    .select(customerColumns)
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);
const linksIn = preparedQuery('linksIn', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  db
    .selectFrom('links')
    .selectAll()
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);
/** A count of views and of distinct viewers, as one JSON value (one pass over the (app_id, link_id, viewer_id) or (app_id, link_id, seq, viewer_id) index). */
const viewCounts = jsonRowsReader<{ views: number; viewers: number }>()(['views', 'viewers']);
/**
 * Per link: views and distinct viewers, those after the creator last read the view logs (seq >
 * read_seq: a range of (app_id, link_id, seq)), and clues. One statement for any number of links (ADR 0011:
 * it was three, plus one per link for the new views).
 */
const linkCountersIn = preparedQuery('linkCountersIn', ({ db, inList, rowsAsJson, projectIs }, appId: string, ids: string[]) =>
  db
    .selectFrom('links as l')
    .select('l.id')
    .select((eb) => [
      rowsAsJson(
        eb
          .selectFrom('link_view_logs as v')
          .select([sql<number>`count(*)`.as('views'), sql<number>`count(distinct v.viewer_id)`.as('viewers')])
          .whereRef('v.app_id', '=', 'l.app_id')
          .whereRef('v.link_id', '=', 'l.id'),
        viewCounts.columns,
      ).as('all_views'),
      rowsAsJson(
        eb
          .selectFrom('link_view_logs as v')
          .select([sql<number>`count(*)`.as('views'), sql<number>`count(distinct v.viewer_id)`.as('viewers')])
          .whereRef('v.app_id', '=', 'l.app_id')
          .whereRef('v.link_id', '=', 'l.id')
          .whereRef('v.seq', '>', 'l.read_seq'),
        viewCounts.columns,
      ).as('new_views'),
      eb
        .selectFrom('clues as c')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('c.link_id', '=', 'l.id')
        .whereRef('c.app_id', '=', 'l.app_id')
        .as('clues'),
    ])
    .where(inList('l.id', ids, 'text'))
    .where(projectIs('l.app_id', appId)),
);

/** A page turn as a view log page carries it: every column of link_view_durations but the project (the view log's). */
type DurationRow = Omit<Selectable<LinkViewDurationsTable>, 'app_id'>;

/** Those columns, in the order a view log page carries them as JSON rows. */
const durationRows = jsonRowsReader<DurationRow>()([
  'link_view_log_id',
  'position',
  'id',
  'file_id',
  'file_name',
  'file_url',
  'page_index',
  'duration',
  'sort_index',
  'created_at',
  'ended_at',
  'total',
]);

/** A view log page's row: every column of link_view_logs, its durations and whether its viewer is a customer. */
const viewLogRows = jsonRowsReader<Selectable<LinkViewLogsTable> & { durations: unknown; viewer_is_customer: number }>()([
  'seq',
  'id',
  'app_id',
  'link_id',
  'viewer_id',
  'viewer_name',
  'ip',
  'location',
  'system',
  'client',
  'clue_id',
  'leave_time',
  'spread_id',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'view_time',
  'total_duration',
  'total_page',
  'created_at',
  'visitor_id',
  'customer_id',
  'beacon_seq',
  'beacon_at',
  'closed_at',
  'left_at',
  'durations',
  'viewer_is_customer',
]);

/**
 * View logs (the rows `logs` selects), each with its durations as one JSON value (an index range each)
 * and whether its viewer is already a live customer of `project`, by id or dealUserId (two index seeks
 * per row; `logs` is a subquery, so only its rows are looked at).
 */
function viewLogsWithExtras(
  { db, rowsAsJson }: QueryScope,
  logs: SelectQueryBuilder<Database, 'link_view_logs', Selectable<LinkViewLogsTable>>,
  project: string | RawBuilder<string>,
) {
  return db
    .selectFrom(logs.as('v'))
    .selectAll('v')
    .select((eb) =>
      rowsAsJson(
        eb
          .selectFrom('link_view_durations as d')
          .selectAll('d')
          .whereRef('d.app_id', '=', 'v.app_id')
          .whereRef('d.link_view_log_id', '=', 'v.id'),
        durationRows.columns,
      ).as('durations'),
    )
    .select((eb) =>
      eb
        .or([
          eb.exists(
            eb
              .selectFrom('customers as c')
              .select('c.id')
              .whereRef('c.id', '=', 'v.viewer_id')
              .where('c.app_id', '=', project)
              .where('c.status', '=', 1),
          ),
          eb.exists(
            eb
              .selectFrom('customers as c')
              .select('c.id')
              .where('c.app_id', '=', project)
              .whereRef('c.deal_user_id', '=', 'v.viewer_id')
              .where('c.status', '=', 1),
          ),
        ])
        .as('viewer_is_customer'),
    );
}

/** Durations of view log rows read as JSON, in the producer's order; updated in place (a spread of a wide row makes V8 build slow dictionary objects). */
function withDurations<R extends { durations: unknown }>(rows: R[]) {
  for (const row of rows) row.durations = durationRows.read(row.durations).sort((a, b) => a.position - b.position);
  return rows as (Omit<R, 'durations'> & { durations: DurationRow[] })[];
}

/**
 * The link, with its last view's sequence number (markLinkRead), and in the same row one page of its
 * view logs as one JSON value (`page`), each with its durations and whether its viewer is already a
 * live customer of the link's project (viewLogsWithExtras). One statement for what took three (ADR 0011).
 * The view logs' path names the link only: its project is the row's.
 */
const linkWithViewLogPage = preparedQuery('linkWithViewLogPage', (q, id: string, pageOf: string, offset: number, limit: number) =>
  q.db
    .selectFrom('links as l')
    .selectAll('l')
    .select((eb) =>
      eb
        .selectFrom('link_view_logs as v')
        .select((e) => e.fn.max('v.seq').as('seq'))
        .whereRef('v.app_id', '=', 'l.app_id')
        .whereRef('v.link_id', '=', 'l.id')
        .as('last_seq'),
    )
    .select(
      q
        .rowsAsJson(
          viewLogsWithExtras(
            q,
            q.db
              .selectFrom('link_view_logs')
              .selectAll()
              .where('app_id', '=', sql.ref<string>('l.app_id'))
              .where('link_id', '=', pageOf)
              .orderBy('view_time', 'desc')
              .orderBy('id', 'desc')
              .offset(offset)
              .limit(limit),
            sql.ref<string>('l.app_id'),
          ),
          viewLogRows.columns,
        )
        .as('page'),
    )
    .where('l.id', '=', id)
    .modifyEnd(crossProject('record-by-id')),
);
/** The project's view logs by id, each with its durations and whether its viewer is a live customer of the project (viewLogsWithExtras). */
const viewLogsIn = preparedQuery('viewLogsIn', (q, appId: string, logsApp: string, ids: string[]) =>
  viewLogsWithExtras(
    q,
    q.db
      .selectFrom('link_view_logs')
      .selectAll()
      .where(q.inList('id', ids, 'text'))
      .where(q.projectIs('app_id', logsApp)),
    appId,
  ),
);
const cluesIn = preparedQuery('cluesIn', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  db
    .selectFrom('clues')
    .selectAll()
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);
const callsIn = preparedQuery('callsIn', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
  db
    .selectFrom('calls')
    .selectAll()
    .where(inList('id', ids, 'text'))
    .where(projectIs('app_id', appId)),
);

export const historiesRepository = {
  /** Calls by callTime desc, id desc; a user filter is two index range scans (caller side, receiver side). */
  listCalls(db: Db, r: PreparedReader, f: CallFilter, offset: number, limit: number): Promise<CallWithCustomer[]> {
    // The unfiltered page (a manager's default view) is prepared; filtered shapes are built.
    if (f.userId === null && f.callStatus === undefined && !f.bucket) return r.all(callsAll, f.appId, offset, limit);
    let q = callsPage(db, f.appId);
    if (f.userId !== null) {
      const id = String(f.userId);
      q = q.where((eb) =>
        eb.or([
          eb.and([eb('from_user_type', '=', 2), eb('from_user_id', '=', id)]),
          eb.and([eb('to_user_type', '=', 2), eb('to_user_id', '=', id)]),
        ]),
      );
    }
    if (f.callStatus !== undefined) q = q.where('call_status', '=', f.callStatus);
    if (f.bucket) {
      q = q.where('duration', '>=', f.bucket[0]);
      if (f.bucket[1] !== null) q = q.where('duration', '<', f.bucket[1]);
    }
    return withCallCustomer(db, q.orderBy('call_time', 'desc').orderBy('id', 'desc').offset(offset).limit(limit)).execute();
  },

  async customersByIds(r: PreparedReader, appId: string, ids: string[]): Promise<Map<string, CustomerRow>> {
    if (ids.length === 0) return new Map();
    const rows = await r.all(customersIn, appId, ids);
    return new Map(rows.map((r) => [r.id, r]));
  },

  listLinks(db: Db, appId: string, creatorId: number | null, offset: number, limit: number) {
    let q = db.selectFrom('links').selectAll().where('app_id', '=', appId);
    if (creatorId !== null) q = q.where('creator_id', '=', creatorId);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
  },

  /** The project's links among these ids. */
  linksByIds(r: PreparedReader, appId: string, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return r.all(linksIn, appId, ids);
  },

  /** Per link of the project: views, distinct viewers, new views and new viewers (after read_seq), and clues. */
  async linkCounters(r: PreparedReader, appId: string, links: { id: string }[]) {
    const out = new Map<string, { views: number; viewers: number; newViews: number; newViewers: number; clues: number }>();
    if (links.length === 0) return out;
    for (const c of await r.all(
      linkCountersIn,
      appId,
      links.map((l) => l.id),
    )) {
      const all = viewCounts.read(c.all_views)[0];
      const fresh = viewCounts.read(c.new_views)[0];
      out.set(c.id, {
        views: Number(all?.views ?? 0),
        viewers: Number(all?.viewers ?? 0),
        newViews: Number(fresh?.views ?? 0),
        newViewers: Number(fresh?.viewers ?? 0),
        clues: Number(c.clues ?? 0),
      });
    }
    return out;
  },

  /**
   * The link with the sequence number of its last view (null without views), and a page of its view
   * logs by view time desc, id desc, each with its durations (in the producer's order) and whether
   * its viewer is a live customer of the link's project.
   */
  async linkWithViewLogs(r: PreparedReader, linkId: string, offset: number, limit: number) {
    const found = await r.first(linkWithViewLogPage, linkId, linkId, offset, limit);
    if (found === undefined) return undefined;
    const rows = viewLogRows.read(found.page).sort((a, b) => b.view_time - a.view_time || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const page = withDurations(rows);
    return { link: found, page };
  },

  /**
   * The project's view logs by id, each with its durations (in the producer's order) and whether
   * its viewer is a live customer of the project.
   */
  async viewLogsByIds(r: PreparedReader, appId: string, ids: string[]) {
    if (ids.length === 0) return [];
    return withDurations(await r.all(viewLogsIn, appId, appId, ids));
  },

  /**
   * The creator has seen every view up to `lastSeq` (read with the link): the update, a write
   * transaction, runs only when views arrived since the last look, not on every page read.
   */
  async markLinkRead(db: Db, link: { id: string; app_id: string; read_seq: number; last_seq: number | string | null }): Promise<void> {
    const max = link.last_seq === null ? null : Number(link.last_seq);
    if (max === null || max <= Number(link.read_seq)) return;
    await db
      .updateTable('links')
      .set({ read_seq: max })
      .where('app_id', '=', link.app_id)
      .where('id', '=', link.id)
      .where('read_seq', '<', max)
      .execute();
  },

  listPosts(db: Db, appId: string, ownerId: number | null, offset: number, limit: number) {
    let q = db.selectFrom('posts').selectAll().where('app_id', '=', appId);
    if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
    return q.orderBy('send_time', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
  },

  /** Whether the project's Post record with this id is stored. */
  async postExists(db: Db, appId: string, postId: string): Promise<boolean> {
    return (
      (await db.selectFrom('posts').select('id').where('app_id', '=', appId).where('id', '=', postId).executeTakeFirst()) !== undefined
    );
  },

  /** Adds to a Post record's counters. */
  async addToPostCounters(db: Db, appId: string, postId: string, by: Partial<Record<PostCounter, number>>): Promise<void> {
    const set: Record<string, unknown> = {};
    for (const [col, n] of Object.entries(by)) if (n) set[col] = sql`${sql.ref(col)} + ${n}`;
    if (Object.keys(set).length === 0) return;
    await db.updateTable('posts').set(set).where('app_id', '=', appId).where('id', '=', postId).execute();
  },

  cluesByIds(r: PreparedReader, appId: string, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return r.all(cluesIn, appId, ids);
  },

  callsByIds(r: PreparedReader, appId: string, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return r.all(callsIn, appId, ids);
  },
};

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
