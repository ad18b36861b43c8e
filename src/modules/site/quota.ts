import type { AppContext } from '../../context.ts';
import { AppError, quotaExceeded } from '../../http/errors.ts';

/**
 * The daily quota of anonymous site records of each project (SITE_ANONYMOUS_DAILY_CAP,
 * docs/site-tracking.md). The count itself lives in the database, taken in the transaction that
 * stores the records (the ingestion write path), so every process and server shares it. This is
 * what one process remembers of it: a project whose quota it found spent is refused at once until
 * the day ends, without queueing a write (the count only grows within a day).
 */
export function createSiteQuota(ctx: Pick<AppContext, 'clock' | 'logger' | 'observer' | 'config'>) {
  const { clock, logger, observer } = ctx;
  /** Projects found spent, and when their day ends. */
  const spentUntil = new Map<string, number>();
  const cap = ctx.config.siteAnonymousDailyCap;

  return {
    /** The cap the write path counts against (0: none). */
    cap,

    /** Throws quota_exceeded when this process already found the project's quota spent today. */
    check(appId: string, now: number): void {
      const until = spentUntil.get(appId);
      if (until === undefined) return;
      if (until <= now) {
        spentUntil.delete(appId);
        return;
      }
      throw quotaExceeded((until - now) / 1000, `The project's daily quota of ${cap} anonymous site records is spent; nothing was written`);
    },

    /** Counts a refused call (the metric) and, when it was refused for the quota, remembers the project as spent. */
    observe(appId: string, err: unknown): void {
      if (!(err instanceof AppError) || err.code !== 'quota_exceeded') return;
      observer.siteQuotaRefused(appId);
      if (spentUntil.has(appId)) return;
      const now = clock.now();
      spentUntil.set(appId, clock.dayEnd(now));
      logger.warn(
        { appId, cap: cap, until: clock.format(clock.dayEnd(now)) },
        "site: the project's daily quota of anonymous records is spent; anonymous collect calls are refused until the day ends",
      );
    },
  };
}

export type SiteQuota = ReturnType<typeof createSiteQuota>;
