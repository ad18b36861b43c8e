import {
  type PreparedQuery,
  type BehaviourRollupsTable,
  type Database,
  type DatabaseHandle,
  bulkOps,
  crossProject,
  preparedQuery,
} from '../../db/index.ts';
import { type Insertable, type Kysely, type Updateable, sql } from 'kysely';

type Db = Kysely<Database>;

/** Tables that hold ingested records, keyed by their id column. */
export type RecordTable = 'customers' | 'behaviour_logs' | 'calls' | 'links' | 'link_view_logs' | 'clues' | 'posts';

/** Site visits upserted by one statement at most (9 parameters each). */
const SITE_VISITS_CHUNK = 100;

/** Tables written straight from parsed rows, in this order. */
const PLAN_TABLES = ['links', 'link_view_logs', 'link_view_durations', 'clues', 'calls', 'posts'] as const;
type PlanTable = (typeof PLAN_TABLES)[number];
export type PlanRows = { [T in PlanTable]: Insertable<Database[T]>[] };

/** The rows one validated batch writes (customers apart). */
export interface RowsPlan {
  rows: PlanRows;
  behaviourRows: Insertable<Database['behaviour_logs']>[];
  outbox: Insertable<Database['outbox']>[];
  rollups: Insertable<BehaviourRollupsTable>[];
  records: number;
}

/**
 * A view log the public viewer is recording moves on with a beacon: its new totals and beacon state,
 * and the Duration items of the pages that changed (upserted at their positions). Written only if
 * the view's last beacon is still `fromSeq`; otherwise the whole plan is left out (`applied` false).
 */
export interface ViewProgressRows {
  appId: string;
  viewLogId: string;
  fromSeq: number;
  set: Updateable<Database['link_view_logs']>;
  durations: Insertable<Database['link_view_durations']>[];
}

/** What the viewer writes for one beacon, view or form: a batch's rows, and what only the viewer does. */
export interface ViewerRows extends RowsPlan {
  progress: ViewProgressRows | null;
  /** View logs made anonymously by a visitor, now attributed to a customer. */
  attribute: { appId: string; viewLogIds: string[]; customerId: string; viewerName: string | null } | null;
  /** The form record filled while viewing: the view log's clue. */
  viewClue: { appId: string; viewLogId: string; clueId: string } | null;
  /** Site tracking's rows (docs/site-tracking.md), or null. */
  site: SiteRows | null;
  /** Set by the write: false when `progress` found the view moved on, or `site.close` the visit closed (nothing of the plan was written). */
  applied?: boolean;
  /** Set by the write with `applied` false: the project's daily quota of anonymous site records had no room for the plan's. */
  refusedForQuota?: boolean;
}

/** What the site snippet's collect calls, joins and visit sweep write beside their behaviour records. */
export interface SiteRows {
  appId: string;
  /** Visits begun or going on: inserted, or their last sign of life moved on (never back). */
  visits: Insertable<Database['site_visits']>[];
  /** An anonymous visitor's records, kept until joined. */
  anonymous: Insertable<Database['site_events']>[];
  /** A visitor tied to a customer, and its anonymous records (now written as the customer's) removed. */
  tie: { row: Insertable<Database['site_visitors']>; joined: string[] } | null;
  /** A silent visit's end, recorded once: only while the visit is open with this last sign of life. */
  close: { visitorId: string; id: string; lastAt: number; endedAt: number } | null;
  /** What anonymous records or a tie were computed from, checked in the transaction (see guardHolds). */
  guard: SiteGuard | null;
  /**
   * The project's daily quota the anonymous records count against (the day, `yyyy-MM-dd` in the
   * server's zone, and its cap), or null: not counted. See takeQuotas.
   */
  quota: { day: string; cap: number } | null;
}

/**
 * The visitor's state a write of anonymous records or of a tie was computed from. The write applies
 * only while the visitor is still tied to `tiedTo` (null: to nobody) as `verified` and, for a tie whose join read
 * every anonymous record (`joinedAll`), while the visitor has no anonymous record but those joined;
 * else nothing of the plan is written (`applied` false) and the caller computes it again. So an
 * anonymous record written while an identify joins the visitor is never left behind.
 */
export interface SiteGuard {
  visitorId: string;
  tiedTo: string | null;
  /** Whether that tie was verified (a tie written meanwhile may have verified it). */
  verified: boolean;
  joinedAll: boolean;
}

/** A project's daily quota of anonymous site records in one group: its cap, the room it had when read, what the group used. */
interface QuotaRoom {
  appId: string;
  day: string;
  cap: number;
  room: number;
  used: number;
}

/**
 * Another transaction took the room of a project's daily quota after this group read it: the group
 * fails and is written again (the group commit splits it; each part reads the count anew).
 */
export class QuotaTaken extends Error {
  constructor(readonly appId: string) {
    super(`The daily quota of anonymous site records of project ${appId} was taken meanwhile`);
    this.name = 'QuotaTaken';
  }
}

/** What a guarded plan of the group does to its visitor, and the tie it was computed from. */
type Taken = { tie: boolean; state: string };
const NO_TIE = '';
/** A visitor's tie as one comparable value: NO_TIE, or verified flag and customer. */
const tieState = (customerId: string | null, verified: boolean): string =>
  customerId === null ? NO_TIE : `${verified ? 1 : 0}:${customerId}`;

/** The advisory key of a site visitor (a namespace of its own above the 32-bit keys of other locks). */
function visitorLockKey(appId: string, visitorId: string): number {
  let h = 0x811c9dc5;
  const s = `${appId}\u0000${visitorId}`;
  for (let i = 0; i < s.length; i += 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return 0x5_0000_0000 + (h >>> 0);
}

const RECORD_TABLES: readonly RecordTable[] = ['customers', 'behaviour_logs', 'calls', 'links', 'link_view_logs', 'clues', 'posts'];

/**
 * Prepared lookups by id, per table: one id (the common one-record request, which PostgreSQL's
 * reader coalesces with its neighbours) and a list (bound as one parameter). Over every project:
 * an id another project's record has is refused.
 */
const byId = (table: RecordTable) => ({
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
const STORED = Object.fromEntries(RECORD_TABLES.map((t) => [t, byId(t)])) as Record<RecordTable, ReturnType<typeof byId>>;

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

/** SQL of the ingestion endpoint: batch lookups and bulk writes (one statement per table and chunk). */
export function createIngestRepository(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);

  /** Rows of many batches, table by table in dependency order: links, then what hangs off links. */
  async function writeRows(trx: Db, plans: RowsPlan[]): Promise<void> {
    const all = <T>(pick: (p: RowsPlan) => T[]): T[] => (plans.length === 1 ? pick(plans[0] as RowsPlan) : plans.flatMap(pick));
    for (const table of PLAN_TABLES)
      await bulk.insert(
        trx,
        table,
        all((p) => p.rows[table] as Insertable<Database[typeof table]>[]),
      );
    await bulk.insert(
      trx,
      'behaviour_logs',
      all((p) => p.behaviourRows),
    );
    await bulk.insert(
      trx,
      'outbox',
      all((p) => p.outbox),
    );
    const rollups = all((p) => p.rollups);
    await addRollups(trx, rollups);
    await addTotals(trx, rollups);
  }

  /**
   * Adds counts to the rollups, already aggregated per key. Rows go in key order: concurrent
   * batches then lock shared rows in the same order (PostgreSQL: waits, never a deadlock), and
   * the index is walked forwards.
   */
  function addRollups(db: Db, rows: Insertable<BehaviourRollupsTable>[]): Promise<void> {
    const sorted = byKey(rows, (r) => [r.app_id, r.customer_id, r.day, r.kind, r.key]);
    return bulk.insertOrAdd(db, 'behaviour_rollups', sorted, ['app_id', 'customer_id', 'day', 'kind', 'key'], 'count');
  }

  /** Adds the same counts to the all-time totals (one row per customer × kind × key). */
  async function addTotals(db: Db, rows: Insertable<BehaviourRollupsTable>[]): Promise<void> {
    const totals = new Map<string, { app_id: string; customer_id: string; kind: string; key: string; count: number }>();
    for (const r of rows) {
      const k = `${r.app_id}\u0000${r.customer_id}\u0000${r.kind}\u0000${r.key}`;
      const t = totals.get(k);
      if (t) t.count += Number(r.count);
      else totals.set(k, { app_id: r.app_id, customer_id: r.customer_id, kind: r.kind, key: r.key, count: Number(r.count) });
    }
    const sorted = byKey([...totals.values()], (r) => [r.app_id, r.customer_id, r.kind, r.key]);
    await bulk.insertOrAdd(db, 'behaviour_totals', sorted, ['app_id', 'customer_id', 'kind', 'key'], 'count');
  }

  const group = database.commitGroup<RowsPlan>(writeRows);

  /** Moves a view log on if its last beacon is still the one the plan was computed from. */
  async function progressView(trx: Db, p: ViewProgressRows): Promise<boolean> {
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
  }

  /** Records a silent visit's end once: false when it was closed meanwhile or came back to life. */
  async function closeVisit(trx: Db, appId: string, c: NonNullable<SiteRows['close']>): Promise<boolean> {
    const res = await trx
      .updateTable('site_visits')
      .set({ ended_at: c.endedAt })
      .where('app_id', '=', appId)
      .where('visitor_id', '=', c.visitorId)
      .where('id', '=', c.id)
      .where('last_at', '=', c.lastAt)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** The site rows of the applied plans: visits, anonymous records, ties and the records they joined. */
  async function writeSite(trx: Db, plans: ViewerRows[]): Promise<void> {
    const sites = plans.flatMap((p) => (p.site === null ? [] : [p.site]));
    if (sites.length === 0) return;
    // One row per visit (its latest sign of life), in key order, a statement per chunk: a statement
    // may not touch a row twice, and concurrent groups then lock shared rows in the same order.
    const latest = new Map<string, Insertable<Database['site_visits']>>();
    for (const v of sites.flatMap((s) => s.visits)) {
      const k = `${v.app_id}\u0000${v.visitor_id}\u0000${v.id}`;
      const before = latest.get(k);
      if (before === undefined) latest.set(k, v);
      else
        latest.set(k, {
          ...before,
          last_at: Math.max(Number(v.last_at), Number(before.last_at)),
          site: before.site ?? v.site ?? null,
          referrer: before.referrer ?? v.referrer ?? null,
          post_id: before.post_id ?? v.post_id ?? null,
        });
    }
    const visits = byKey([...latest.values()], (v) => [v.app_id, v.visitor_id, v.id]);
    for (let i = 0; i < visits.length; i += SITE_VISITS_CHUNK) {
      await trx
        .insertInto('site_visits')
        .values(visits.slice(i, i + SITE_VISITS_CHUNK))
        .onConflict((oc) =>
          oc.columns(['app_id', 'visitor_id', 'id']).doUpdateSet((eb) => ({
            last_at: sql<number>`case when ${eb.ref('excluded.last_at')} > ${eb.ref('site_visits.last_at')} then ${eb.ref('excluded.last_at')} else ${eb.ref('site_visits.last_at')} end`,
            // A visit first seen by a call without its start learns its site, referrer and campaign later.
            site: sql<string | null>`coalesce(${eb.ref('site_visits.site')}, ${eb.ref('excluded.site')})`,
            referrer: sql<string | null>`coalesce(${eb.ref('site_visits.referrer')}, ${eb.ref('excluded.referrer')})`,
            post_id: sql<string | null>`coalesce(${eb.ref('site_visits.post_id')}, ${eb.ref('excluded.post_id')})`,
          })),
        )
        .execute();
    }
    await bulk.insert(
      trx,
      'site_events',
      sites.flatMap((s) => s.anonymous),
    );
    for (const s of sites) {
      if (s.tie === null) continue;
      const { row, joined } = s.tie;
      await trx
        .insertInto('site_visitors')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['app_id', 'id']).doUpdateSet({
            customer_id: row.customer_id,
            verified: row.verified,
            via: row.via,
            updated_at: row.updated_at,
          }),
        )
        .execute();
      for (const part of bulk.lookupChunks(joined)) {
        await trx.deleteFrom('site_events').where('app_id', '=', s.appId).where(bulk.anyOf('id', part)).execute();
      }
    }
  }

  /** The guarded visitors' ties as this transaction sees them (see tieState), one statement per project and chunk. */
  async function tiesOf(trx: Db, sites: SiteRows[]): Promise<Map<string, string>> {
    const byApp = new Map<string, Set<string>>();
    for (const s of sites) {
      if (s.guard === null) continue;
      let ids = byApp.get(s.appId);
      if (ids === undefined) byApp.set(s.appId, (ids = new Set()));
      ids.add(s.guard.visitorId);
    }
    const ties = new Map<string, string>();
    for (const [appId, ids] of byApp) {
      for (const part of bulk.lookupChunks([...ids])) {
        const rows = await trx
          .selectFrom('site_visitors')
          .select(['id', 'customer_id', 'verified'])
          .where('app_id', '=', appId)
          .where(bulk.anyOf('id', part))
          .execute();
        for (const r of rows) ties.set(`${appId}\u0000${r.id}`, tieState(r.customer_id, Number(r.verified) === 1));
      }
    }
    return ties;
  }

  /**
   * Whether a plan's site guard holds in this transaction. `ties`: the guarded visitors' ties before
   * the group; `taken`: what the group's applied plans do to each guarded visitor. A tie excludes any
   * other guarded plan of its visitor in the group (that one is computed again after this commit);
   * anonymous records exclude a tie.
   */
  async function guardHolds(trx: Db, s: SiteRows, ties: Map<string, string>, taken: Map<string, Taken>): Promise<boolean> {
    const g = s.guard;
    if (g === null) return true;
    const key = `${s.appId}\u0000${g.visitorId}`;
    const seen = tieState(g.tiedTo, g.verified);
    const before = taken.get(key);
    if (before !== undefined) return s.tie === null && !before.tie && before.state === seen;
    if ((ties.get(key) ?? NO_TIE) !== seen) return false;
    if (s.tie !== null && g.joinedAll) {
      const joined = new Set(s.tie.joined);
      const left = await trx
        .selectFrom('site_events')
        .select('id')
        .where('app_id', '=', s.appId)
        .where('visitor_id', '=', g.visitorId)
        .limit(joined.size + 1)
        .execute();
      if (left.some((r) => !joined.has(r.id))) return false;
    }
    return true;
  }

  /**
   * The room left in the daily quotas of the group's counted plans, by project and day, as read now
   * (each project's row of the day made when missing). Read without a lock: takeQuotas counts what
   * the group used at its end, and fails the group if another transaction took the room meanwhile.
   */
  async function quotaRooms(trx: Db, plans: ViewerRows[]): Promise<Map<string, QuotaRoom>> {
    const rooms = new Map<string, QuotaRoom>();
    const wanted = new Map<string, { appId: string; day: string; cap: number }>();
    for (const p of plans) {
      const q = p.site?.quota;
      if (p.site != null && q != null) wanted.set(`${p.site.appId}\u0000${q.day}`, { appId: p.site.appId, day: q.day, cap: q.cap });
    }
    for (const key of [...wanted.keys()].sort()) {
      const { appId, day, cap } = wanted.get(key) as { appId: string; day: string; cap: number };
      await trx
        .insertInto('site_anonymous_counts')
        .values({ app_id: appId, day, records: 0 })
        .onConflict((oc) => oc.columns(['app_id', 'day']).doNothing())
        .execute();
      const row = await trx
        .selectFrom('site_anonymous_counts')
        .select('records')
        .where('app_id', '=', appId)
        .where('day', '=', day)
        .executeTakeFirstOrThrow();
      rooms.set(key, { appId, day, cap, room: cap - Number(row.records), used: 0 });
    }
    return rooms;
  }

  /**
   * Counts what the group stored against each quota, last, so that the row is locked (PostgreSQL)
   * only while the transaction commits. Another process's group that took the room since the read
   * fails this one: the group commit then writes it again in halves, each reading the count anew,
   * down to the plan that no longer fits, which is refused alone.
   */
  async function takeQuotas(trx: Db, rooms: Map<string, QuotaRoom>): Promise<void> {
    for (const r of [...rooms.values()].sort((a, b) => (a.appId === b.appId ? (a.day < b.day ? -1 : 1) : a.appId < b.appId ? -1 : 1))) {
      if (r.used === 0) continue;
      const res = await trx
        .updateTable('site_anonymous_counts')
        .set((eb) => ({ records: eb('records', '+', r.used) }))
        .where('app_id', '=', r.appId)
        .where('day', '=', r.day)
        .where((eb) => eb(eb('records', '+', r.used), '<=', r.cap))
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new QuotaTaken(r.appId);
    }
  }

  /** The room of a plan's quota (undefined: not counted). */
  const roomOf = (s: SiteRows | null, rooms: Map<string, { room: number; used: number }>) =>
    s?.quota == null ? undefined : rooms.get(`${s.appId}\u0000${s.quota.day}`);

  /**
   * The viewer's plans: each view's progress first (a plan whose view moved on meanwhile is left out
   * whole), then the records of the plans that apply, as a batch's, then the attributions.
   */
  async function writeViewer(trx: Db, plans: ViewerRows[]): Promise<void> {
    const guarded = plans.flatMap((p) => (p.site?.guard == null ? [] : [p.site]));
    let ties = new Map<string, string>();
    if (guarded.length > 0) {
      // Guarded visitors are taken in turn (PostgreSQL: a lock per visitor until commit; SQLite's one
      // writer already serialises), so that a guard read here still holds when the transaction commits.
      await database.features.transactionLock(
        trx,
        guarded.map((s) => visitorLockKey(s.appId, (s.guard as SiteGuard).visitorId)),
      );
      ties = await tiesOf(trx, guarded);
    }
    const rooms = await quotaRooms(trx, plans);
    const taken = new Map<string, Taken>();
    const applied: ViewerRows[] = [];
    for (const p of plans) {
      const room = roomOf(p.site, rooms);
      const records = p.site?.anonymous.length ?? 0;
      p.refusedForQuota = room !== undefined && room.used + records > room.room;
      p.applied =
        !p.refusedForQuota &&
        (p.site === null || (await guardHolds(trx, p.site, ties, taken))) &&
        (p.progress === null || (await progressView(trx, p.progress))) &&
        (p.site?.close == null || (await closeVisit(trx, p.site.appId, p.site.close)));
      if (!p.applied) continue;
      if (room !== undefined) room.used += records;
      applied.push(p);
      const g = p.site?.guard;
      if (p.site != null && g != null) {
        taken.set(`${p.site.appId}\u0000${g.visitorId}`, { tie: p.site.tie !== null, state: tieState(g.tiedTo, g.verified) });
      }
    }
    if (applied.length === 0) return;
    await writeRows(trx, applied);
    await writeSite(trx, applied);
    for (const p of applied) {
      const c = p.viewClue;
      if (c !== null) {
        await trx
          .updateTable('link_view_logs')
          .set({ clue_id: c.clueId })
          .where('app_id', '=', c.appId)
          .where('id', '=', c.viewLogId)
          .execute();
      }
      const a = p.attribute;
      if (a === null || a.viewLogIds.length === 0) continue;
      for (const part of bulk.lookupChunks(a.viewLogIds)) {
        await trx
          .updateTable('link_view_logs')
          .set({ customer_id: a.customerId, viewer_id: a.customerId, viewer_name: a.viewerName })
          .where('app_id', '=', a.appId)
          .where(bulk.anyOf('id', part))
          .where('customer_id', 'is', null)
          .execute();
      }
    }
    await takeQuotas(trx, rooms);
  }

  const viewerGroup = database.commitGroup<ViewerRows>(writeViewer);

  return {
    writeRows,

    /**
     * Writes one request's rows together with other requests' arriving at the same time, in one
     * transaction; resolves once they are committed and on disk. Throws CommitQueueFull when too
     * many records wait.
     */
    writeGrouped(plan: RowsPlan): Promise<void> {
      return group.submit(plan, plan.records);
    },

    writeViewer,

    /** The viewer's rows for one beacon, grouped with others' as a batch's are (see writeGrouped). */
    writeViewerGrouped(plan: ViewerRows): Promise<void> {
      return viewerGroup.submit(plan, Math.max(1, plan.records));
    },

    /** The project each of these ids already belongs to, in one table. */
    async existing(database: DatabaseHandle, table: RecordTable, ids: string[]): Promise<Map<string, string>> {
      const rows = await readByIds(database, STORED[table].one, STORED[table].list, ids, (l) => bulk.lookupChunks(l));
      return new Map(rows.map((r) => [r.id, r.app_id]));
    },

    /**
     * Customers of the project (live, deleted or merged) among these ids, with their owner and, for a
     * merged one, the customer it was merged into.
     */
    async customers(
      database: DatabaseHandle,
      appId: string,
      ids: string[],
    ): Promise<Map<string, { owner_id: number; merged_customer_id: string | null }>> {
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

    /** Active members of the project among these platform user ids. */
    async activeMembers(db: Db, appId: string, userIds: number[]): Promise<Set<number>> {
      if (userIds.length === 0) return new Set();
      const rows = await db
        .selectFrom('members')
        .select('user_id')
        .where('app_id', '=', appId)
        .where('status', '=', 0)
        .where(bulk.anyOf('user_id', userIds))
        .execute();
      return new Set(rows.map((m) => m.user_id));
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
