import type { AppContext } from '../../context.ts';
import type { Actor } from '../access/service.ts';
import { siteRepository as repo } from './repository.ts';

/** What the site page's check says: when the project's snippet last sent something, and from which host. */
export interface SiteLastEvent {
  /** ISO 8601 (UTC) time of the latest event received, or null when none was. */
  receivedAt: string | null;
  /** The host of the page that visit began on (null when unknown or no event was received). */
  site: string | null;
}

/**
 * The site page's "last event received" check (docs/site-tracking.md): the latest sign of life of
 * any visit the project's snippet recorded, read from an index. Visits of visitors who stayed
 * anonymous are kept SITE_ANONYMOUS_DAYS; a project whose only visits were those may read "none" after.
 */
export function createSiteStatus(ctx: AppContext) {
  const reader = ctx.database.reader;
  return {
    async lastEvent(actor: Actor): Promise<SiteLastEvent> {
      const row = await repo.latestVisit(reader, actor.app.id);
      if (row === undefined) return { receivedAt: null, site: null };
      return { receivedAt: new Date(Number(row.last_at)).toISOString(), site: row.site ?? null };
    },
  };
}

export type SiteStatus = ReturnType<typeof createSiteStatus>;
