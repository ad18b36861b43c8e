/**
 * What the alerts module reads of links and views (docs/alerts.md): whether a link is directed at a
 * customer, its name and file; a view's reading so far (pages read, time); a view's reader (its
 * visitor, network, the address it gave) and the views of its link before it. One statement each,
 * by id within the project. Reached through the links service (`createLinkReads`).
 */
import type { Database } from '../../db/index.ts';
import { type Kysely, sql } from 'kysely';

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

/** Who read a view: its visitor cookie, its address as stored (truncated unless IP_TRUNCATE is off), the address they gave. */
export interface ViewReader {
  id: string;
  linkId: string;
  customerId: string | null;
  /** Arrival order: the views of a link before this one have a lower `seq`. */
  seq: number;
  viewTime: number;
  visitorId: string | null;
  ip: string | null;
  /** The address given on the link's e-mail gate, or in its form during the view; null: none. */
  email: string | null;
  /** The gate's code proved `email`. */
  verified: boolean;
}

/** A link's views by one customer before a given one, grouped by visitor and address: when each was last seen. */
export interface EarlierView {
  visitorId: string | null;
  ip: string | null;
  lastAt: number;
}

/** Earlier views read at most, the latest (a link viewed more often is judged by its latest views: a flood costs no more). */
const EARLIER_MAX = 1000;

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

  async readers(db: Db, appId: string, viewIds: string[]): Promise<Map<string, ViewReader>> {
    const out = new Map<string, ViewReader>();
    if (viewIds.length === 0) return out;
    const rows = await db
      .selectFrom('link_view_logs')
      .select(['id', 'link_id', 'customer_id', 'seq', 'view_time', 'visitor_id', 'ip', 'reader_email', 'reader_verified'])
      .where('app_id', '=', appId)
      .where('id', 'in', viewIds)
      .execute();
    for (const r of rows) {
      out.set(r.id, {
        id: r.id,
        linkId: r.link_id,
        customerId: r.customer_id,
        seq: Number(r.seq),
        viewTime: Number(r.view_time),
        visitorId: r.visitor_id,
        ip: r.ip,
        email: r.reader_email,
        verified: r.reader_verified === 1,
      });
    }
    return out;
  },

  /** The customer's latest views of the link that arrived before `seq` (EARLIER_MAX), by visitor and address. */
  async earlier(db: Db, appId: string, v: { linkId: string; customerId: string; seq: number }): Promise<EarlierView[]> {
    const latest = db
      .selectFrom('link_view_logs')
      .select(['visitor_id', 'ip', sql<number>`coalesce(beacon_at, view_time)`.as('seen_at')])
      .where('app_id', '=', appId)
      .where('link_id', '=', v.linkId)
      .where('customer_id', '=', v.customerId)
      .where('seq', '<', v.seq)
      .orderBy('seq', 'desc')
      .limit(EARLIER_MAX)
      .as('latest');
    const rows = await db
      .selectFrom(latest)
      .select(['visitor_id', 'ip', sql<number>`max(seen_at)`.as('last_at')])
      .groupBy(['visitor_id', 'ip'])
      .execute();
    return rows.map((r) => ({ visitorId: r.visitor_id, ip: r.ip, lastAt: Number(r.last_at) }));
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
