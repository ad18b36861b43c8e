/**
 * The histories' SQL of the interface's lists (calls, links, posts) and of the reads other modules
 * make (links, clues and calls by id, link counters, a Post record's counters). Links and a record's
 * customer are read through the links' and customers' read models (each statement still one). View
 * logs are read in view-logs.repository.ts, the record write path is records.repository.ts.
 */
import { type PreparedReader, preparedQuery, type CallsTable, type Database } from '../../db/index.ts';
import { type Kysely, type SelectQueryBuilder, type Selectable, sql } from 'kysely';
import type { CardColumns, CustomerCardRow, CustomerHistoryReads } from '../customers/mapper.ts';
import type { LinkHistoryReads } from '../links/mapper.ts';

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

/** A customer as a call or link shows it (the customers module's card). */
export type CustomerRow = CustomerCardRow;

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

/** A call row with the columns its customer shows (customers' `cu_…` card columns). */
export type CallWithCustomer = CallRow & CardColumns;

/** The other modules' read models the histories' statements are built on (wired in src/services.ts). */
export interface HistoryReadModels {
  links: LinkHistoryReads;
  customers: CustomerHistoryReads;
}

/**
 * A page of calls with the columns its customer shows (same project), in one statement: the
 * page is a subquery, so rows skipped by the offset are never joined.
 */
function withCallCustomer(customers: CustomerHistoryReads, db: Db, page: SelectQueryBuilder<Database, 'calls', CallRow>) {
  return customers.withCards(db, page.as('k')).orderBy('k.call_time', 'desc').orderBy('k.id', 'desc') as unknown as SelectQueryBuilder<
    Database,
    'calls',
    CallWithCustomer
  >;
}

/** The customer of a call row from withCallCustomer, if it has one in the project. */
export function callCustomer(r: CallWithCustomer): CustomerRow | undefined {
  if (r.cu_id === null) return undefined;
  // One object literal (every row of a calls page goes through here); \`satisfies\` keeps it in step with the card's columns.
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
  } satisfies Record<keyof CustomerRow, unknown> as CustomerRow;
}

const callsPage = (db: Db, appId: string) => db.selectFrom('calls').selectAll().where('app_id', '=', appId);

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

/**
 * The histories' reads, built on the links' and customers' read models (`reads`): each of their
 * statements names the other modules' tables only through them.
 */
export function createHistoriesRepository(reads: HistoryReadModels) {
  const { links, customers } = reads;
  const callsAll = preparedQuery('callsAll', ({ db }, appId: string, offset: number, limit: number) =>
    withCallCustomer(customers, db, callsPage(db, appId).orderBy('call_time', 'desc').orderBy('id', 'desc').offset(offset).limit(limit)),
  );
  // Reads by id list find their rows by primary key; the project condition is checked on the rows
  // found (DialectFeatures.projectIs).
  const customersIn = preparedQuery('historyCustomersIn', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
    customers
      .cards(db)
      .where(inList('id', ids, 'text'))
      .where(projectIs('app_id', appId)),
  );
  const linksIn = preparedQuery('linksIn', ({ db, inList, projectIs }, appId: string, ids: string[]) =>
    links
      .links(db)
      .where(inList('id', ids, 'text'))
      .where(projectIs('app_id', appId)),
  );
  /**
   * Per link: views and distinct viewers, those after the creator last read the view logs (the
   * links' read model), and clues. One statement for any number of links (ADR 0011: it was three,
   * plus one per link for the new views).
   */
  const linkCountersIn = preparedQuery('linkCountersIn', (q, appId: string, ids: string[]) =>
    links
      .withViewCounts(q)
      .select((eb) =>
        eb
          .selectFrom('clues as c')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('c.link_id', '=', 'l.id')
          .whereRef('c.app_id', '=', 'l.app_id')
          .as('clues'),
      )
      .where(q.inList('l.id', ids, 'text'))
      .where(q.projectIs('l.app_id', appId)),
  );

  return {
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
      return withCallCustomer(customers, db, q.orderBy('call_time', 'desc').orderBy('id', 'desc').offset(offset).limit(limit)).execute();
    },

    async customersByIds(r: PreparedReader, appId: string, ids: string[]): Promise<Map<string, CustomerRow>> {
      if (ids.length === 0) return new Map();
      const rows = await r.all(customersIn, appId, ids);
      return new Map(rows.map((r) => [r.id, r]));
    },

    listLinks(db: Db, appId: string, creatorId: number | null, offset: number, limit: number) {
      let q = links.links(db).where('app_id', '=', appId);
      if (creatorId !== null) q = q.where('creator_id', '=', creatorId);
      return q.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
    },

    /** The project's links among these ids. */
    linksByIds(r: PreparedReader, appId: string, ids: string[]) {
      if (ids.length === 0) return Promise.resolve([]);
      return r.all(linksIn, appId, ids);
    },

    /** Per link of the project: views, distinct viewers, new views and new viewers (after read_seq), and clues. */
    async linkCounters(r: PreparedReader, appId: string, list: { id: string }[]) {
      const out = new Map<string, { views: number; viewers: number; newViews: number; newViewers: number; clues: number }>();
      if (list.length === 0) return out;
      for (const c of await r.all(
        linkCountersIn,
        appId,
        list.map((l) => l.id),
      )) {
        const all = links.viewCounts.read(c.all_views)[0];
        const fresh = links.viewCounts.read(c.new_views)[0];
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
}
