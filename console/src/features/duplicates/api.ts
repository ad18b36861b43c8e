import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

/** What customers of a set share. */
export type DuplicateKind = 'phone' | 'email' | 'name_company';

export const duplicateQueries = {
  /** Under the customers' key: a merge (or any customer change) makes the sets stale. */
  all: (appId: string) => ['customers', appId, 'duplicates'] as const,
  /** One page of sets of live customers the caller may see that share `by`. */
  list: (appId: string, by: DuplicateKind, page: number, pageSize: number) =>
    queryOptions({
      queryKey: [...duplicateQueries.all(appId), by, page, pageSize],
      queryFn: async () => {
        const sets = unwrap(
          await api.GET('/api/v1.7/app/{appId}/member/{svcUserId}/customer/duplicates', {
            params: { path: { appId, svcUserId: 'all' }, query: { by, start_index: (page - 1) * pageSize, count: pageSize + 1 } },
          }),
        );
        return { sets: sets.slice(0, pageSize), hasMore: sets.length > pageSize };
      },
    }),
};

export type DuplicateSet = Awaited<ReturnType<NonNullable<ReturnType<typeof duplicateQueries.list>['queryFn']>>>['sets'][number];

/** Merges `mergeIds` into `mainId` as `actingUserId` (the survivor keeps its owner). */
export function useMergeCustomers(appId: string, actingUserId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { mainId: string; mergeIds: string[] }) =>
      unwrap(
        await api.POST('/api/v1.7/app/{appId}/member/{svcUserId}/customer/merge', {
          params: { path: { appId, svcUserId: String(actingUserId) } },
          body: { main_customer_id: input.mainId, merge_user_ids: input.mergeIds.join(',') },
        }),
      ),
    // Lists, details and the sets all change.
    onSuccess: () => client.invalidateQueries({ queryKey: ['customers', appId] }),
  });
}
