import { type Database, type PreparedReader, crossProject, preparedQuery } from '../../db/index.ts';
import type { Kysely, Selectable } from 'kysely';

type Db = Kysely<Database>;

const visitorTie = preparedQuery('siteVisitorTie', ({ db }, appId: string, visitorId: string) =>
  db.selectFrom('site_visitors').select(['customer_id', 'verified']).where('app_id', '=', appId).where('id', '=', visitorId),
);

export type SiteEventRow = Selectable<Database['site_events']>;
export type SiteVisitRow = Selectable<Database['site_visits']>;

/** SQL of site tracking's reads; its writes go through ingestion's write path (ViewerWrite.site). */
export const siteRepository = {
  /** The customer the site visitor is tied to in the project, if any. */
  visitorTie(r: PreparedReader, appId: string, visitorId: string): Promise<{ customer_id: string; verified: number } | undefined> {
    return r.first(visitorTie, appId, visitorId);
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
