import type { AppContext } from '../../context.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { CustomerWritePath, ViewerCustomer } from '../customers/service.ts';
import { type IngestService, visitorRecordBody } from '../ingest/service.ts';
import { siteRepository as repo } from './repository.ts';

/** A visit with no sign of life for this long is over: the sweep records its end. The snippet starts a new visit after the same time. */
export const SITE_VISIT_IDLE_MS = 30 * 60 * 1000;
/** How often the sweep job runs (the composition root defines it). */
export const SWEEP_EVERY_MS = 60_000;
/** Anonymous rows the expiry looks for at a time. */
const EXPIRE_BATCH = 1000;

/** A visitor's record body made the customer's. */
export const forCustomer = (body: Record<string, unknown>, customer: ViewerCustomer) => ({
  ...body,
  customerId: customer.id,
  customerName: customer.name,
  svcUserId: String(customer.ownerId),
});

function groupBy<T>(rows: T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/**
 * The site's background work (docs/site-tracking.md), every project's, run by the sweep job: the end
 * of visits gone silent (`access_site_end`), and the expiry of what anonymous visitors did long ago.
 */
export function createSiteSweep(ctx: AppContext, deps: { customers: Pick<CustomerWritePath, 'viewerCustomers'>; ingest: IngestService }) {
  const { customers, ingest } = deps;
  const db = ctx.database.db;
  const reader = ctx.database.reader;
  const { clock, logger } = ctx;

  /** Closes one silent visit: its `access_site_end` record, the customer's or kept anonymous. */
  async function closeVisit(v: Awaited<ReturnType<typeof repo.silentVisits>>[number], now: number): Promise<boolean> {
    const tie = await repo.visitorTie(reader, v.app_id, v.visitor_id);
    const customer =
      tie === undefined ? null : ((await customers.viewerCustomers(v.app_id, [tie.customer_id])).get(tie.customer_id) ?? null);
    const body = visitorRecordBody(
      clock,
      {
        visitorId: v.visitor_id,
        action: 'access_site_end',
        when: v.last_at,
        content: {
          web_access_log_id: v.id,
          site: v.site ?? '',
          referrer: v.referrer ?? '',
          referrerTitle: '',
          viewTime: clock.format(v.started_at),
          leaveTime: clock.format(v.last_at),
        },
      },
      null,
    );
    const id = timeOrderedUuid();
    return ingest.recordViewer({
      appId: v.app_id,
      now,
      linkTags: [],
      behaviours: customer === null ? [] : [{ id, body: forCustomer(body, customer) }],
      site: {
        close: { visitorId: v.visitor_id, id: v.id, lastAt: v.last_at },
        // Identified meanwhile: nothing is written, and the next sweep closes it as the customer's.
        ...(customer === null
          ? {
              anonymous: [{ id, visitorId: v.visitor_id, body }],
              guard: { visitorId: v.visitor_id, tiedTo: tie?.customer_id ?? null, verified: tie?.verified === 1, joinedAll: false },
            }
          : {}),
      },
    });
  }

  /**
   * Deletes what anonymous visitors did more than SITE_ANONYMOUS_DAYS ago (every project's): their
   * records and their ended visits, a batch at a time, each its own short transaction. Returns how
   * many rows it deleted.
   */
  async function expireAnonymous(): Promise<number> {
    const before = clock.now() - ctx.config.siteAnonymousDays * 24 * 3600 * 1000;
    let deleted = 0;
    // A round that found a full batch looks again, unless it deleted nothing (others raced it there).
    for (let round = EXPIRE_BATCH; round === EXPIRE_BATCH;) {
      const rows = await repo.oldAnonymousEvents(db, before, EXPIRE_BATCH);
      let n = 0;
      for (const [appId, group] of groupBy(rows, (r) => r.app_id))
        n += await repo.deleteAnonymousEvents(
          db,
          appId,
          group.map((r) => r.id),
        );
      deleted += n;
      round = n === 0 ? 0 : rows.length;
    }
    for (let round = EXPIRE_BATCH; round === EXPIRE_BATCH;) {
      const rows = await repo.oldAnonymousVisits(db, before, EXPIRE_BATCH);
      let n = 0;
      for (const group of groupBy(rows, (r) => `${r.app_id}\u0000${r.visitor_id}`).values()) {
        const { app_id: appId, visitor_id: visitorId } = group[0] as (typeof rows)[number];
        n += await repo.deleteAnonymousVisits(
          db,
          appId,
          visitorId,
          group.map((r) => r.id),
        );
      }
      deleted += n;
      round = n === 0 ? 0 : rows.length;
    }
    if (deleted > 0) logger.info({ deleted }, "site: expired anonymous visitors' records and visits");
    return deleted;
  }

  return {
    /**
     * Records the end of visits silent for SITE_VISIT_IDLE_MS (every project's): `access_site_end`,
     * its leave time the visit's last sign of life. Several processes may sweep at once: a visit ends
     * once. Returns how many it closed.
     */
    async sweep(): Promise<number> {
      const now = clock.now();
      let closed = 0;
      for (const v of await repo.silentVisits(db, now - SITE_VISIT_IDLE_MS, 200)) if (await closeVisit(v, now)) closed += 1;
      await expireAnonymous();
      // Yesterday's count stays a day (a call that began before midnight may still count against it).
      await repo.pruneAnonymousCounts(db, clock.day(now - 24 * 3600 * 1000));
      return closed;
    },

    expireAnonymous,
  };
}

export type SiteSweep = ReturnType<typeof createSiteSweep>;
