import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

export const HISTORY_PAGE_SIZE = 20;

/** A page of a history list; one row more than shown says whether there is a next page (the API answers pages, not totals). */
function paged<T>(rows: T[]): { rows: T[]; hasMore: boolean } {
  return { rows: rows.slice(0, HISTORY_PAGE_SIZE), hasMore: rows.length > HISTORY_PAGE_SIZE };
}

export const historyQueries = {
  /** Calls, newest first (Master/Admin: the project's; Sales: their own), optionally connected (1) or not (0) only. */
  calls: (appId: string, page: number, status: 0 | 1 | undefined) =>
    queryOptions({
      queryKey: ['calls', appId, page, status],
      queryFn: async () =>
        paged(
          unwrap(
            await api.GET('/api/v1.7/calls', {
              params: {
                query: {
                  app_id: appId,
                  start_index: (page - 1) * HISTORY_PAGE_SIZE,
                  count: HISTORY_PAGE_SIZE + 1,
                  ...(status !== undefined ? { call_status: status } : {}),
                },
              },
            }),
          ),
        ),
      placeholderData: keepPreviousData,
    }),
  /** Mass e-mail sends, newest first, with the producer's counters. */
  posts: (appId: string, page: number) =>
    queryOptions({
      queryKey: ['posts', appId, page],
      queryFn: async () =>
        paged(
          unwrap(
            await api.GET('/api/v1.7/posts', {
              params: { query: { app_id: appId, start_index: (page - 1) * HISTORY_PAGE_SIZE, count: HISTORY_PAGE_SIZE + 1 } },
            }),
          ),
        ),
      placeholderData: keepPreviousData,
    }),
};

export type Call = Awaited<ReturnType<NonNullable<ReturnType<typeof historyQueries.calls>['queryFn']>>>['rows'][number];
export type Post = Awaited<ReturnType<NonNullable<ReturnType<typeof historyQueries.posts>['queryFn']>>>['rows'][number];
