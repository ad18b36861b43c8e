import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { type DownloadedFile, readFile } from '../../shared/api/download.ts';
import { linkQueries } from './api.ts';

/*
 * A link's reading analytics and its pages' images: apart from api.ts, which the live stream (in the
 * console's first load) imports for the links' query keys. Their keys start with the link's
 * (`linkQueries.all`), so what refreshes a link's views refreshes its analytics too.
 */

/** Viewers per page of a link's analytics. */
export const VIEWER_PAGE_SIZE = 10;

/** One version of a link's file (which file, which version), as the analytics name it. */
export interface VersionKey {
  fileId: string;
  version: number;
}

/** The analytics' query for one version (or every one) and a page of its viewers. */
const analyticsQuery = (version: VersionKey | undefined, page: number) => ({
  ...(version ? { version: version.version, file_id: version.fileId } : {}),
  start_index: (page - 1) * VIEWER_PAGE_SIZE,
  count: VIEWER_PAGE_SIZE,
});

/** A blob as a data: URL (the console's images may be data: URLs; object URLs would have to be revoked). */
const dataUrl = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('the image could not be read'));
    reader.readAsDataURL(blob);
  });

export const analyticsQueries = {
  /**
   * A link's reading analytics: its views and viewers, each version's figures (every version, or the
   * one asked for) and a page of its viewers (of that version).
   */
  analytics: (appId: string, linkId: string, version: VersionKey | undefined, page: number) =>
    queryOptions({
      queryKey: [...linkQueries.all(appId), 'item', linkId, 'analytics', version?.fileId ?? null, version?.version ?? null, page],
      queryFn: async () => {
        const answer = unwrap(
          await api.GET('/api/v1.7/app/{appId}/link/{linkId}/analytics', {
            params: { path: { appId, linkId }, query: analyticsQuery(version, page) },
          }),
        );
        // The route answers CSV too (format=csv, not asked here).
        if (typeof answer === 'string') throw new Error('The analytics came as text, not JSON');
        return answer;
      },
      placeholderData: keepPreviousData,
    }),
  /**
   * A page's small image (the phone's width) of a file's version, as a data: URL with its size; null
   * while it is not rendered. A version's images never change, so they are kept.
   */
  pageImage: (appId: string, fileId: string, version: number, page: number) =>
    queryOptions({
      queryKey: ['files', appId, fileId, 'page', version, page],
      queryFn: async () => {
        const { data, response } = await api.GET('/api/v1.7/app/{appId}/file/{fileId}/page/{n}', {
          params: { path: { appId, fileId, n: page }, query: { width: 'phone' } },
          parseAs: 'blob',
        });
        if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('image/') || !data) return null;
        const bitmap = await createImageBitmap(data as Blob);
        const size = { width: bitmap.width, height: bitmap.height };
        bitmap.close();
        return { url: await dataUrl(data as Blob), ...size };
      },
      staleTime: Infinity,
      gcTime: 30 * 60_000,
    }),
};

/** A link's viewers (of a version, or of all) as the CSV the API writes. */
export async function analyticsCsv(appId: string, linkId: string, version: VersionKey | undefined): Promise<DownloadedFile> {
  return readFile(
    await api.GET('/api/v1.7/app/{appId}/link/{linkId}/analytics', {
      params: {
        path: { appId, linkId },
        query: { format: 'csv', ...(version ? { version: version.version, file_id: version.fileId } : {}) },
      },
      parseAs: 'stream',
    }),
    'link-viewers.csv',
  );
}

export type LinkAnalytics = Awaited<ReturnType<NonNullable<ReturnType<typeof analyticsQueries.analytics>['queryFn']>>>;
export type VersionFigures = LinkAnalytics['versions'][number];
export type ViewerFigures = LinkAnalytics['viewers'][number];
