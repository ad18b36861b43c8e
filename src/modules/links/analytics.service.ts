import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { csvText } from '../../lib/csv.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { CustomerWritePath, ViewerCustomer } from '../customers/service.ts';
import type { FileViewer, ViewerFile } from '../files/service.ts';
import {
  type VersionCounts,
  type VersionKey,
  type ViewerFigures,
  type ViewerVersion,
  linkAnalyticsRepository as repo,
} from './analytics.repository.ts';
import type { LinkRow } from './mapper.ts';
import { linksRepository } from './repository.ts';

/** Viewers per page of an export (one range of the viewers' index each). */
const EXPORT_PAGE = 500;

/** What a reading of the analytics asks for: one version (of the link's file, unless `fileId` names another), a page of viewers. */
export interface AnalyticsRequest {
  linkId: string;
  version?: number | undefined;
  fileId?: string | undefined;
  page: Page;
}

export interface PageFigures {
  page: number;
  views: number;
  avgSeconds: number;
  reach: number;
}

export interface VersionFigures {
  fileId: string;
  fileName: string | null;
  version: number;
  current: boolean;
  pageCount: number;
  views: number;
  uniqueViewers: number;
  completion: number;
  medianSeconds: number;
  pages: PageFigures[];
  dropOffPage: { page: number; views: number; share: number } | null;
}

export interface ViewerRow {
  viewerId: string;
  customerId: string | null;
  viewerName: string | null;
  views: number;
  completion: number | null;
  seconds: number;
  lastViewedAt: string;
}

/** Seconds to a tenth; shares to a hundredth of a percent. */
const seconds = (ms: number) => Math.round(ms / 100) / 10;
const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round(Math.min(1, part / whole) * 10_000) / 10_000);
const keyOf = (k: VersionKey) => `${k.fileId}\u0000${k.version}`;

type PageCounts = Awaited<ReturnType<typeof repo.pages>>;

/**
 * A link's reading analytics (docs/links.md, "Reading analytics"; ADR 0046): per link, per version
 * of its file (pages, completion, median time, drop-off) and per viewer, for those who may read the
 * link's views (Master and Admin any link of the project, Sales their own; else link_not_found).
 * Figures are SQL aggregates (analytics.repository.ts); this file turns them into what a seller reads.
 */
export function createLinkAnalytics(
  ctx: AppContext,
  deps: {
    files: Pick<FileViewer, 'viewerFile'>;
    customers: Pick<CustomerWritePath, 'viewerCustomers'>;
    /** Each CSV export is recorded in the project's audit log. */
    audit: AuditRecorder;
  },
) {
  const { files, customers } = deps;
  const { clock } = ctx;
  const db = ctx.database.db;
  const reader = ctx.database.reader;

  /** The link, if the actor may read its views (the histories' rule for view logs). */
  async function readable(actor: Actor, linkId: string): Promise<LinkRow> {
    const link = await linksRepository.find(db, actor.app.id, linkId);
    if (!link || (!actor.isManager && link.creator_id !== actor.userId)) throw failure('link_not_found');
    return link;
  }

  /** The version asked for: of the link's file unless another is named; null for every version. */
  function askedVersion(link: LinkRow, req: Pick<AnalyticsRequest, 'version' | 'fileId'>): VersionKey | null {
    if (req.version === undefined) return null;
    return { fileId: req.fileId ?? link.file1 ?? '', version: req.version };
  }

  /** One version's figures from its counts; `file` is its file as it is now (its page count if it is still the current version). */
  async function versionFigures(link: LinkRow, v: VersionCounts, parts: { pages: PageCounts; file: ViewerFile | null }) {
    const { file } = parts;
    const current = file !== null && file.versionNumber === v.version;
    const read = parts.pages.filter((p) => p.fileId === v.fileId && p.version === v.version);
    // An earlier version's page count is as its views opened it (or, not known, up to the last page any view reached).
    const pageCount = Math.max(current ? file.pageCount : v.pageCount, ...read.map((p) => p.page), 0);
    const byPage = new Map(read.map((p) => [p.page, p]));
    const pages: PageFigures[] = [];
    for (let n = 1; n <= pageCount; n += 1) {
      const p = byPage.get(n);
      pages.push({
        page: n,
        views: p?.views ?? 0,
        avgSeconds: p && p.views > 0 ? seconds(p.ms / p.views) : 0,
        reach: share(p?.views ?? 0, v.views),
      });
    }
    let dropOff: { page: number; views: number } | null = null;
    for (const e of v.endings) {
      if (e.page < 1 || e.page >= pageCount) continue;
      if (dropOff === null || e.views > dropOff.views || (e.views === dropOff.views && e.page < dropOff.page))
        dropOff = { page: e.page, views: e.views };
    }
    return {
      fileId: v.fileId,
      fileName: file?.name ?? null,
      version: v.version,
      current,
      pageCount,
      views: v.views,
      uniqueViewers: v.viewers,
      completion: share(v.pagesRead, v.views * pageCount),
      medianSeconds: seconds(await repo.medianMs(reader, link.app_id, link.id, v)),
      pages,
      dropOffPage: dropOff === null ? null : { ...dropOff, share: share(dropOff.views, v.views) },
    } satisfies VersionFigures;
  }

  /** Every version with views, and the link's file's current one (its pages all unread until someone reads it), newest first. */
  async function versionsOf(link: LinkRow): Promise<VersionFigures[]> {
    const appId = link.app_id;
    const [counts, pages] = await Promise.all([repo.versions(reader, appId, link.id), repo.pages(reader, appId, link.id)]);
    const fileIds = [...new Set([...counts.map((c) => c.fileId), ...(link.type === 1 && link.file1 !== null ? [link.file1] : [])])];
    const filesNow = new Map(await Promise.all(fileIds.map(async (id) => [id, await files.viewerFile(appId, id)] as const)));
    const linkFile = link.type === 1 && link.file1 !== null ? filesNow.get(link.file1) : null;
    if (linkFile && !counts.some((c) => c.fileId === linkFile.id && c.version === linkFile.versionNumber)) {
      counts.push({ fileId: linkFile.id, version: linkFile.versionNumber, views: 0, viewers: 0, pagesRead: 0, pageCount: 0, endings: [] });
    }
    const out = await Promise.all(counts.map((v) => versionFigures(link, v, { pages, file: filesNow.get(v.fileId) ?? null })));
    // The link's file first, newest version first; then other files the link showed before.
    const rank = (v: VersionFigures) => (v.fileId === link.file1 ? 0 : 1);
    return out.sort((a, b) => rank(a) - rank(b) || a.fileId.localeCompare(b.fileId) || b.version - a.version);
  }

  /** Viewer rows for these figures: who they are, and their completion (each view's share of its version's pages, averaged). */
  async function viewerRows(link: LinkRow, figures: ViewerFigures[], ctxv: { only: VersionKey | null; pageCounts: Map<string, number> }) {
    const ids = figures.map((f) => f.viewerId);
    const groups = await repo.viewerVersions(reader, link.app_id, link.id, ids);
    const byViewer = new Map<string, ViewerVersion[]>();
    for (const g of groups) byViewer.set(g.viewerId, [...(byViewer.get(g.viewerId) ?? []), g]);
    const customerIds = [...new Set(groups.map((g) => g.customerId).filter((id): id is string => id !== null))];
    const known = customerIds.length === 0 ? new Map<string, ViewerCustomer>() : await customers.viewerCustomers(link.app_id, customerIds);
    return figures.map((f): ViewerRow => {
      const mine = byViewer.get(f.viewerId) ?? [];
      let sum = 0;
      let views = 0;
      for (const g of mine) {
        if (g.version === null || (ctxv.only !== null && keyOf(g.version) !== keyOf(ctxv.only))) continue;
        const count = ctxv.pageCounts.get(keyOf(g.version)) ?? 0;
        if (count === 0) continue;
        sum += Math.min(g.pagesRead / count, g.views);
        views += g.views;
      }
      const customerId = mine.map((g) => g.customerId).find((id) => id !== null) ?? null;
      const stored = mine.map((g) => g.viewerName).find((name) => name !== null) ?? null;
      return {
        viewerId: f.viewerId,
        customerId,
        viewerName: (customerId === null ? undefined : known.get(customerId)?.name) ?? stored,
        views: f.views,
        completion: views === 0 ? null : share(sum, views),
        seconds: seconds(f.ms),
        lastViewedAt: clock.format(f.lastAt),
      };
    });
  }

  const pageCountsOf = (versions: VersionFigures[]) => new Map(versions.map((v) => [keyOf(v), v.pageCount]));

  return {
    /** The analytics of a link the actor may read: the link's views and viewers, its versions' figures, a page of its viewers. */
    async read(actor: Actor, req: AnalyticsRequest) {
      const link = await readable(actor, req.linkId);
      const only = askedVersion(link, req);
      const [totals, versions, figures] = await Promise.all([
        repo.totals(reader, link.app_id, link.id),
        versionsOf(link),
        repo.viewerPage(reader, link.app_id, link.id, { version: only, ...req.page }),
      ]);
      const viewers = await viewerRows(link, figures, { only, pageCounts: pageCountsOf(versions) });
      return {
        linkId: link.id,
        views: totals.views,
        uniqueViewers: totals.viewers,
        versions: only === null ? versions : versions.filter((v) => keyOf(v) === keyOf(only)),
        viewers,
      };
    },

    /** The link's viewers (of one version, or of all) as CSV, a page at a time, with the columns and figures of `viewers`. */
    async csv(actor: Actor, req: Omit<AnalyticsRequest, 'page'>): Promise<Readable> {
      const link = await readable(actor, req.linkId);
      const only = askedVersion(link, req);
      await deps.audit(db, {
        appId: link.app_id,
        actorId: actor.userId,
        action: 'link.analytics_export',
        targetType: 'link',
        targetId: link.id,
        detail: { format: 'csv', ...(only === null ? {} : { fileId: only.fileId, version: only.version }) },
      });
      const pageCounts = pageCountsOf(await versionsOf(link));
      async function* rows(): AsyncGenerator<(string | number | null)[]> {
        yield ['viewerId', 'customerId', 'viewerName', 'views', 'completion', 'seconds', 'lastViewedAt'];
        let after = '';
        for (;;) {
          const figures = await repo.viewersAfter(reader, link.app_id, link.id, { version: only, after, limit: EXPORT_PAGE });
          for (const v of await viewerRows(link, figures, { only, pageCounts })) {
            yield [v.viewerId, v.customerId, v.viewerName, v.views, v.completion, v.seconds, v.lastViewedAt];
          }
          if (figures.length < EXPORT_PAGE) return;
          after = figures[figures.length - 1]?.viewerId ?? after;
        }
      }
      return Readable.from(csvText(rows()));
    },
  };
}

export type LinkAnalytics = ReturnType<typeof createLinkAnalytics>;
