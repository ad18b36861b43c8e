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
};
