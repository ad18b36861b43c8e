import { type Database, type DatabaseHandle, type PreparedReader, bulkOps, crossProject, preparedQuery } from '../../db/index.ts';
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';

type Db = Kysely<Database>;

const visitorTie = preparedQuery('siteVisitorTie', ({ db }, appId: string, visitorId: string) =>
  db.selectFrom('site_visitors').select(['customer_id', 'verified']).where('app_id', '=', appId).where('id', '=', visitorId),
);

// The project's latest visit by its last sign of life: the index site_visits_latest_idx (app_id, last_at).
const latestVisit = preparedQuery('siteLatestVisit', ({ db }, appId: string) =>
  db.selectFrom('site_visits').select(['last_at', 'site']).where('app_id', '=', appId).orderBy('last_at', 'desc').limit(1),
);

export type SiteEventRow = Selectable<Database['site_events']>;
export type SiteVisitRow = Selectable<Database['site_visits']>;

/** SQL of site tracking's reads and sweeps; what ingestion's write path stores for it is createSiteWrites' below. */
export const siteRepository = {
  /** The customer the site visitor is tied to in the project, if any. */
  visitorTie(r: PreparedReader, appId: string, visitorId: string): Promise<{ customer_id: string; verified: number } | undefined> {
    return r.first(visitorTie, appId, visitorId);
  },

  /** The project's visit with the latest sign of life (its time and host), if it has any. */
  latestVisit(r: PreparedReader, appId: string): Promise<{ last_at: number; site: string | null } | undefined> {
    return r.first(latestVisit, appId);
  },

  /** The anonymous visitor's records in the project, oldest first, at most `limit`. */
  anonymousEvents(db: Db, appId: string, visitorId: string, limit: number): Promise<SiteEventRow[]> {
    return db
      .selectFrom('site_events')
      .selectAll()
      .where('app_id', '=', appId)
      .where('visitor_id', '=', visitorId)
      .orderBy('when_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  },

  /** Open visits of every project with no sign of life since `before`, oldest first. */
  silentVisits(db: Db, before: number, limit: number): Promise<SiteVisitRow[]> {
    return db
      .selectFrom('site_visits')
      .selectAll()
      .where('ended_at', 'is', null)
      .where('last_at', '<', before)
      .orderBy('last_at')
      .limit(limit)
      .modifyEnd(crossProject('site-visit-sweep'))
      .execute();
  },

  /** Up to `limit` anonymous visitors' records (every project's) made before `before`. */
  oldAnonymousEvents(db: Db, before: number, limit: number): Promise<{ app_id: string; id: string }[]> {
    return db
      .selectFrom('site_events')
      .select(['app_id', 'id'])
      .where('when_at', '<', before)
      .limit(limit)
      .modifyEnd(crossProject('site-anonymous-expiry'))
      .execute();
  },

  async deleteAnonymousEvents(db: Db, appId: string, ids: string[]): Promise<number> {
    const result = await db.deleteFrom('site_events').where('app_id', '=', appId).where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Up to `limit` ended visits (every project's) last seen before `before` of visitors tied to no customer. */
  oldAnonymousVisits(db: Db, before: number, limit: number): Promise<{ app_id: string; visitor_id: string; id: string }[]> {
    return db
      .selectFrom('site_visits as v')
      .select(['v.app_id', 'v.visitor_id', 'v.id'])
      .where('v.ended_at', 'is not', null)
      .where('v.last_at', '<', before)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('site_visitors as tie')
              .select('tie.id')
              .whereRef('tie.app_id', '=', 'v.app_id')
              .whereRef('tie.id', '=', 'v.visitor_id'),
          ),
        ),
      )
      .limit(limit)
      .modifyEnd(crossProject('site-anonymous-expiry'))
      .execute();
  },

  /** Deletes the daily counts of anonymous records of days before `day` (`yyyy-MM-dd`), every project's. */
  async pruneAnonymousCounts(db: Db, day: string): Promise<number> {
    const result = await db
      .deleteFrom('site_anonymous_counts')
      .where('day', '<', day)
      .modifyEnd(crossProject('site-quota-prune'))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Deletes those visits of one visitor, unless the visitor has been tied to a customer meanwhile. */
  async deleteAnonymousVisits(db: Db, appId: string, visitorId: string, ids: string[]): Promise<number> {
    const result = await db
      .deleteFrom('site_visits')
      .where('app_id', '=', appId)
      .where('visitor_id', '=', visitorId)
      .where('id', 'in', ids)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('site_visitors').select('id').where('app_id', '=', appId).where('id', '=', visitorId))))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};

/** Site visits upserted by one statement at most (9 parameters each). */
const SITE_VISITS_CHUNK = 100;

/**
 * What ingestion's viewer write stores for site tracking (ViewerWrite.site), in its transaction: the
 * visits, anonymous records and ties, and the reads and counts its guards and the daily quota need.
 */
export function createSiteWrites(database: DatabaseHandle) {
  const bulk = bulkOps(database.features);
  return {
    /** Visits inserted, or their last sign of life moved on (never back); one row per visit, in key order, a statement per chunk. */
    async upsertVisits(trx: Db, visits: Insertable<Database['site_visits']>[]): Promise<void> {
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
    },

    /** Anonymous records, one statement per chunk. */
    insertAnonymous(trx: Db, rows: Insertable<Database['site_events']>[]): Promise<void> {
      return bulk.insert(trx, 'site_events', rows);
    },

    /** The visitor tied to a customer, and the anonymous records that tie joined (now the customer's) removed. */
    async tie(trx: Db, row: Insertable<Database['site_visitors']>, joined: string[]): Promise<void> {
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
        await trx.deleteFrom('site_events').where('app_id', '=', row.app_id).where(bulk.anyOf('id', part)).execute();
      }
    },

    /** The ties of these visitors of the project as this transaction sees them, one statement per chunk. */
    async ties(trx: Db, appId: string, visitorIds: string[]): Promise<{ id: string; customer_id: string; verified: number }[]> {
      const found: { id: string; customer_id: string; verified: number }[] = [];
      for (const part of bulk.lookupChunks(visitorIds)) {
        found.push(
          ...(await trx
            .selectFrom('site_visitors')
            .select(['id', 'customer_id', 'verified'])
            .where('app_id', '=', appId)
            .where(bulk.anyOf('id', part))
            .execute()),
        );
      }
      return found;
    },

    /** Ids of the visitor's anonymous records, at most `limit`. */
    async anonymousIds(trx: Db, appId: string, visitorId: string, limit: number): Promise<string[]> {
      const rows = await trx
        .selectFrom('site_events')
        .select('id')
        .where('app_id', '=', appId)
        .where('visitor_id', '=', visitorId)
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    /** Records a silent visit's end once: false when it was closed meanwhile or came back to life. */
    async closeVisit(trx: Db, appId: string, c: { visitorId: string; id: string; lastAt: number; endedAt: number }): Promise<boolean> {
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
    },

    /** The project's count of anonymous records on the day, its row made when missing. */
    async dayCount(trx: Db, appId: string, day: string): Promise<number> {
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
      return Number(row.records);
    },

    /** Adds `used` records to the day's count if it stays within `cap`: false when it would not. */
    async addToDayCount(trx: Db, q: { appId: string; day: string; used: number; cap: number }): Promise<boolean> {
      const res = await trx
        .updateTable('site_anonymous_counts')
        .set((eb) => ({ records: eb('records', '+', q.used) }))
        .where('app_id', '=', q.appId)
        .where('day', '=', q.day)
        .where((eb) => eb(eb('records', '+', q.used), '<=', q.cap))
        .executeTakeFirst();
      return Number(res.numUpdatedRows) === 1;
    },
  };
}
