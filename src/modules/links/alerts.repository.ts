/**
 * What the alerts module reads of links and views (docs/alerts.md): whether a link is directed at a
 * customer, its name and file; a view's reading so far (pages read, time). One statement each, by id
 * within the project. Reached through the links service (`createLinkReads`).
 */
import type { Database } from '../../db/index.ts';
import type { Kysely } from 'kysely';

type Db = Kysely<Database>;

/** A link as an alert names it. */
export interface AlertLink {
  id: string;
  name: string | null;
  title: string | null;
  type: number;
  /** The customer a directed link is for; null for a link to anyone. */
  directedAt: string | null;
  creatorId: number | null;
  fileId: string | null;
}

/** A view's reading as stored: the pages read (those with a Duration item), the time on them, whether it is closed. */
export interface ViewReading {
  id: string;
  linkId: string;
  customerId: string | null;
  viewTime: number;
  pagesRead: number;
  totalMs: number;
  closedAt: number | null;
}

export const linkAlertsRepository = {
  async links(db: Db, appId: string, ids: string[]): Promise<Map<string, AlertLink>> {
    const out = new Map<string, AlertLink>();
    if (ids.length === 0) return out;
    const rows = await db
      .selectFrom('links')
      .select(['id', 'name', 'title', 'type', 'is_directional', 'customer_id', 'creator_id', 'file1'])
      .where('app_id', '=', appId)
      .where('id', 'in', ids)
      .execute();
    for (const r of rows) {
      out.set(r.id, {
        id: r.id,
        name: r.name,
        title: r.title,
        type: r.type,
        directedAt: r.is_directional === 1 ? r.customer_id : null,
        creatorId: r.creator_id,
        fileId: r.file1,
      });
    }
    return out;
  },

  async readings(db: Db, appId: string, viewIds: string[]): Promise<Map<string, ViewReading>> {
    const out = new Map<string, ViewReading>();
    if (viewIds.length === 0) return out;
    const rows = await db
      .selectFrom('link_view_logs')
      .select(['id', 'link_id', 'customer_id', 'view_time', 'total_page', 'total_duration', 'closed_at'])
      .where('app_id', '=', appId)
      .where('id', 'in', viewIds)
      .execute();
    for (const r of rows) {
      out.set(r.id, {
        id: r.id,
        linkId: r.link_id,
        customerId: r.customer_id,
        viewTime: r.view_time,
        pagesRead: Number(r.total_page ?? 0),
        totalMs: Number(r.total_duration ?? 0),
        closedAt: r.closed_at,
      });
    }
    return out;
  },
};
