/**
 * The SQL of a link's reading analytics (docs/links.md, "Reading analytics"; ADR 0046): aggregates
 * over the link's view logs and Duration items, each one range of an index of migration 042, so
 * their cost follows the link's views and never loads them: the views per version of its file
 * (`link_view_logs_versions_idx`: counts, median time, where views ended), its pages per version
 * (`link_view_durations_pages_idx`) and its viewers (`link_view_logs_viewers_idx`). Only the public
 * viewer's rows carry a version; an integrator's count in the link's views and viewers alone.
 */
import { type PreparedReader, type QueryScope, preparedQuery } from '../../db/index.ts';
import { sql } from 'kysely';

/**
 * The link's views and distinct viewers (a visitor, or the customer it became): its views grouped by
 * viewer along the viewers' index (no sort, as `count(distinct)` would make), then counted.
 */
const totals = preparedQuery('linkAnalyticsTotals', ({ db }, appId: string, linkId: string) =>
  db
    .selectFrom(
      db
        .selectFrom('link_view_logs')
        .select(['viewer_id', sql<number>`count(*)`.as('views')])
        .where('app_id', '=', appId)
        .where('link_id', '=', linkId)
        .groupBy('viewer_id')
        .as('byViewer'),
    )
    .select([sql<number>`sum(views)`.as('views'), sql<number>`count(viewer_id)`.as('viewers')]),
);

/**
 * Per version of a file the link's views opened and the page they ended on: views, the pages they read
 * (each view's distinct pages, summed) and the version's page count. A version's views are the sum over its pages.
 */
const versionEndings = preparedQuery('linkAnalyticsVersionEndings', ({ db }, appId: string, linkId: string) =>
  db
    .selectFrom('link_view_logs')
    .select([
      'file_id',
      'file_version',
      'last_page',
      sql<number>`count(*)`.as('views'),
      sql<number>`sum(total_page)`.as('pages_read'),
      sql<number | null>`max(file_page_count)`.as('file_page_count'),
    ])
    .where('app_id', '=', appId)
    .where('link_id', '=', linkId)
    .where('file_version', 'is not', null)
    .groupBy(['file_id', 'file_version', 'last_page']),
);

/** Per version: its distinct viewers (the views grouped by viewer and version along the viewers' index, then counted). */
const versionViewers = preparedQuery('linkAnalyticsVersionViewers', ({ db }, appId: string, linkId: string) =>
  db
    .selectFrom(
      db
        .selectFrom('link_view_logs')
        .select(['viewer_id', 'file_id', 'file_version'])
        .where('app_id', '=', appId)
        .where('link_id', '=', linkId)
        .where('viewer_id', 'is not', null)
        .where('file_version', 'is not', null)
        .groupBy(['viewer_id', 'file_id', 'file_version'])
        .as('byViewer'),
    )
    .select(['file_id', 'file_version', sql<number>`count(*)`.as('viewers')])
    .groupBy(['file_id', 'file_version']),
);

/** Per version and page: the views that read it and their time on it (ms). `page_index` is the stored text. */
const pages = preparedQuery('linkAnalyticsPages', ({ db }, appId: string, linkId: string) =>
  db
    .selectFrom('link_view_durations')
    .select(['file_id', 'file_version', 'page_index', sql<number>`count(*)`.as('views'), sql<number>`sum(total)`.as('ms')])
    .where('app_id', '=', appId)
    .where('link_id', '=', linkId)
    .where('file_version', 'is not', null)
    .groupBy(['file_id', 'file_version', 'page_index']),
);

/** The view times (ms) of one version in order, from `offset`, two of them: the median's (a seek along the index). */
const middle = preparedQuery(
  'linkAnalyticsMiddle',
  ({ db }, appId: string, linkId: string, fileId: string, version: number, offset: number) =>
    db
      .selectFrom('link_view_logs')
      .select('total_duration')
      .where('app_id', '=', appId)
      .where('link_id', '=', linkId)
      .where('file_id', '=', fileId)
      .where('file_version', '=', version)
      .where('file_version', 'is not', null)
      .orderBy('total_duration')
      .limit(2)
      .offset(offset),
);

const viewerFigures = [
  'viewer_id',
  sql<number>`count(*)`.as('views'),
  sql<number>`sum(total_duration)`.as('ms'),
  sql<number>`max(view_time)`.as('last_at'),
] as const;

/** The link's views grouped by viewer, with their figures: what each viewer statement below narrows and orders. */
const byViewer = (db: QueryScope['db'], appId: string, linkId: string) =>
  db.selectFrom('link_view_logs').select(viewerFigures).where('app_id', '=', appId).where('link_id', '=', linkId).groupBy('viewer_id');

/** A page of the link's viewers, the one who viewed last first: their views, time (ms) and last view. */
const viewerPage = preparedQuery('linkAnalyticsViewers', ({ db }, appId: string, linkId: string, offset: number, limit: number) =>
  byViewer(db, appId, linkId)
    .where('viewer_id', 'is not', null)
    .orderBy('last_at', 'desc')
    .orderBy('viewer_id')
    .limit(limit)
    .offset(offset),
);

/** viewerPage over the views of one version (a statement of its own: a prepared statement's text is fixed). */
const versionViewerPage = preparedQuery(
  'linkAnalyticsVersionViewerPage',
  ({ db }, appId: string, linkId: string, fileId: string, version: number, offset: number, limit: number) =>
    byViewer(db, appId, linkId)
      .where('viewer_id', 'is not', null)
      .where('file_id', '=', fileId)
      .where('file_version', '=', version)
      .orderBy('last_at', 'desc')
      .orderBy('viewer_id')
      .limit(limit)
      .offset(offset),
);

/** The link's viewers after `after` in id order (an export's pages: each one a range of the index). */
const viewersAfter = preparedQuery('linkAnalyticsViewersAfter', ({ db }, appId: string, linkId: string, after: string, limit: number) =>
  byViewer(db, appId, linkId).where('viewer_id', '>', after).orderBy('viewer_id').limit(limit),
);

/** viewersAfter over the views of one version. */
const versionViewersAfter = preparedQuery(
  'linkAnalyticsVersionViewersAfter',
  ({ db }, appId: string, linkId: string, fileId: string, version: number, after: string, limit: number) =>
    byViewer(db, appId, linkId)
      .where('viewer_id', '>', after)
      .where('file_id', '=', fileId)
      .where('file_version', '=', version)
      .orderBy('viewer_id')
      .limit(limit),
);

/** These viewers' views per version (none: not the viewer's), with the pages they read and who they are. */
const viewerVersions = preparedQuery('linkAnalyticsViewerVersions', ({ db, inList }, appId: string, linkId: string, ids: string[]) =>
  db
    .selectFrom('link_view_logs')
    .select([
      'viewer_id',
      'file_id',
      'file_version',
      sql<number>`count(*)`.as('views'),
      sql<number>`sum(total_page)`.as('pages_read'),
      sql<string | null>`max(customer_id)`.as('customer_id'),
      sql<string | null>`max(viewer_name)`.as('viewer_name'),
    ])
    .where('app_id', '=', appId)
    .where('link_id', '=', linkId)
    .where(inList('viewer_id', ids, 'text'))
    .groupBy(['viewer_id', 'file_id', 'file_version']),
);

/** A version of a file: which file, which version. */
export interface VersionKey {
  fileId: string;
  version: number;
}

/** A version's views, distinct viewers, pages read (summed over its views) and views per page they ended on. */
export interface VersionCounts extends VersionKey {
  views: number;
  viewers: number;
  pagesRead: number;
  /** Its page count as its views opened it (0: not known). */
  pageCount: number;
  endings: { page: number; views: number }[];
}

/** A viewer's figures: views, time (ms), last view (epoch ms). */
export interface ViewerFigures {
  viewerId: string;
  views: number;
  ms: number;
  lastAt: number;
}

/** A viewer's views of one version (or of none: `version` null), the pages they read, who they are. */
export interface ViewerVersion {
  viewerId: string;
  version: VersionKey | null;
  views: number;
  pagesRead: number;
  customerId: string | null;
  viewerName: string | null;
}

const n = (v: number | string | null | undefined) => Number(v ?? 0);

const figures = (r: { viewer_id: string | null; views: number; ms: number; last_at: number }): ViewerFigures => ({
  viewerId: r.viewer_id as string,
  views: n(r.views),
  ms: n(r.ms),
  lastAt: n(r.last_at),
});

/** The reading analytics' reads, through the prepared reader (on SQLite, off the main thread). */
export const linkAnalyticsRepository = {
  async totals(reader: PreparedReader, appId: string, linkId: string): Promise<{ views: number; viewers: number }> {
    const r = await reader.first(totals, appId, linkId);
    return { views: n(r?.views), viewers: n(r?.viewers) };
  },

  /** Per version: views, distinct viewers, pages read, and the views per page they ended on. */
  async versions(reader: PreparedReader, appId: string, linkId: string): Promise<VersionCounts[]> {
    const [endings, viewers] = await Promise.all([reader.all(versionEndings, appId, linkId), reader.all(versionViewers, appId, linkId)]);
    const out = new Map<string, VersionCounts>();
    for (const r of endings) {
      const key = { fileId: r.file_id as string, version: n(r.file_version) };
      const k = `${key.fileId}\u0000${key.version}`;
      const v = out.get(k) ?? { ...key, views: 0, viewers: 0, pagesRead: 0, pageCount: 0, endings: [] };
      v.views += n(r.views);
      v.pageCount = Math.max(v.pageCount, n(r.file_page_count));
      v.pagesRead += n(r.pages_read);
      if (r.last_page !== null) v.endings.push({ page: n(r.last_page), views: n(r.views) });
      out.set(k, v);
    }
    for (const r of viewers) {
      const v = out.get(`${r.file_id as string}\u0000${n(r.file_version)}`);
      if (v) v.viewers = n(r.viewers);
    }
    return [...out.values()];
  },

  /** Per version and page number: views and ms. Pages whose stored index is no page number are left out. */
  async pages(reader: PreparedReader, appId: string, linkId: string) {
    const out: (VersionKey & { page: number; views: number; ms: number })[] = [];
    for (const r of await reader.all(pages, appId, linkId)) {
      const page = /^\d{1,7}$/.test(r.page_index ?? '') ? Number(r.page_index) : 0;
      if (page > 0) out.push({ fileId: r.file_id as string, version: n(r.file_version), page, views: n(r.views), ms: n(r.ms) });
    }
    return out;
  },

  /** The median view time (ms) of a version of `views` views. */
  async medianMs(reader: PreparedReader, appId: string, linkId: string, key: VersionKey & { views: number }): Promise<number> {
    if (key.views === 0) return 0;
    const rows = await reader.all(middle, appId, linkId, key.fileId, key.version, Math.floor((key.views - 1) / 2));
    const [a, b] = rows.map((r) => n(r.total_duration));
    return key.views % 2 === 1 || b === undefined ? (a ?? 0) : ((a ?? 0) + b) / 2;
  },

  /** A page of viewers (of one version, or of all), the latest first. */
  async viewerPage(
    reader: PreparedReader,
    appId: string,
    linkId: string,
    q: { version: VersionKey | null; offset: number; limit: number },
  ) {
    const rows =
      q.version === null
        ? await reader.all(viewerPage, appId, linkId, q.offset, q.limit)
        : await reader.all(versionViewerPage, appId, linkId, q.version.fileId, q.version.version, q.offset, q.limit);
    return rows.map(figures);
  },

  /** Viewers after `after` in id order (of one version, or of all). */
  async viewersAfter(
    reader: PreparedReader,
    appId: string,
    linkId: string,
    q: { version: VersionKey | null; after: string; limit: number },
  ) {
    const rows =
      q.version === null
        ? await reader.all(viewersAfter, appId, linkId, q.after, q.limit)
        : await reader.all(versionViewersAfter, appId, linkId, q.version.fileId, q.version.version, q.after, q.limit);
    return rows.map(figures);
  },

  async viewerVersions(reader: PreparedReader, appId: string, linkId: string, ids: string[]): Promise<ViewerVersion[]> {
    if (ids.length === 0) return [];
    return (await reader.all(viewerVersions, appId, linkId, ids)).map((r) => ({
      viewerId: r.viewer_id as string,
      version: r.file_version === null || r.file_id === null ? null : { fileId: r.file_id, version: n(r.file_version) },
      views: n(r.views),
      pagesRead: n(r.pages_read),
      customerId: r.customer_id,
      viewerName: r.viewer_name,
    }));
  },
};
