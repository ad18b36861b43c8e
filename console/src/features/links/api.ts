import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

export const LINK_PAGE_SIZE = 20;

export const linkQueries = {
  all: (appId: string) => ['links', appId] as const,
  /** A page of the project's links (newest first) with their counters and share URLs; one row more says whether there is a next page. */
  list: (appId: string, page: number) =>
    queryOptions({
      queryKey: [...linkQueries.all(appId), 'list', page],
      queryFn: async () => {
        const rows = unwrap(
          await api.GET('/api/v1.7/app/{appId}/links', {
            params: { path: { appId }, query: { with_url: 1, start_index: (page - 1) * LINK_PAGE_SIZE, count: LINK_PAGE_SIZE + 1 } },
          }),
        );
        return { rows: rows.slice(0, LINK_PAGE_SIZE), hasMore: rows.length > LINK_PAGE_SIZE };
      },
      placeholderData: keepPreviousData,
    }),
  /** A link's view logs, newest first, with each page's dwell. */
  viewLogs: (appId: string, linkId: string) =>
    queryOptions({
      queryKey: [...linkQueries.all(appId), 'item', linkId, 'views'],
      queryFn: async () =>
        unwrap(await api.GET('/api/v1.7/link/{linkId}/view-logs', { params: { path: { linkId }, query: { count: 100 } } })),
    }),
  /** The project's files (for a file link), newest first. */
  files: (appId: string) =>
    queryOptions({
      queryKey: ['files', appId],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/files', { params: { path: { appId }, query: { count: 100 } } })),
    }),
  file: (appId: string, fileId: string) =>
    queryOptions({
      queryKey: ['files', appId, fileId],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/file/{fileId}', { params: { path: { appId, fileId } } })),
      // Pages are rendered after the upload's answer: ask again until the file is ready (or failed).
      refetchInterval: (q) => (q.state.data?.status === 'processing' ? 1000 : false),
    }),
};

export type LinkItem = Awaited<ReturnType<NonNullable<ReturnType<typeof linkQueries.list>['queryFn']>>>['rows'][number];
export type ViewLog = Awaited<ReturnType<NonNullable<ReturnType<typeof linkQueries.viewLogs>['queryFn']>>>[number];
export type FileItem = Awaited<ReturnType<NonNullable<ReturnType<typeof linkQueries.files>['queryFn']>>>[number];

export function useDisableLink(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (linkId: string) =>
      unwrap(await api.DELETE('/api/v1.7/app/{appId}/link/{linkId}', { params: { path: { appId, linkId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: linkQueries.all(appId) }),
  });
}
