import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { customerQueries } from '../customers/index.ts';

const PAGE = 20;

export const customerDetailQueries = {
  /** Under the customer's key, so what invalidates the customer invalidates these too. */
  overview: (appId: string, customerId: string) =>
    queryOptions({
      queryKey: [...customerQueries.all(appId), 'item', customerId, 'overview'],
      queryFn: async () =>
        unwrap(
          await api.GET('/api/v1.7/customer/{customerId}/overview', { params: { path: { customerId }, query: { time_range_type: 1 } } }),
        ),
    }),
  behaviour: (appId: string, customerId: string) =>
    infiniteQueryOptions({
      queryKey: [...customerQueries.all(appId), 'item', customerId, 'behaviour'],
      initialPageParam: 0,
      queryFn: async ({ pageParam }) =>
        unwrap(
          await api.GET('/api/v1.7/app/{appId}/member/customer/{customerId}/behaviour', {
            params: { path: { appId, customerId }, query: { start_index: pageParam, count: PAGE } },
          }),
        ),
      getNextPageParam: (last, pages) => (last.length < PAGE ? undefined : pages.length * PAGE),
    }),
};

export type Overview = Awaited<ReturnType<NonNullable<ReturnType<typeof customerDetailQueries.overview>['queryFn']>>>;
export type BehaviourRecord = Awaited<ReturnType<NonNullable<ReturnType<typeof customerDetailQueries.behaviour>['queryFn']>>>[number];
