import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

export const memberQueries = {
  all: (appId: string) => ['members', appId] as const,
  /** The project's members (at most 100: the console's projects are teams, not crowds). */
  list: (appId: string) =>
    queryOptions({
      queryKey: [...memberQueries.all(appId), 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/members', { params: { path: { appId }, query: { count: 100 } } })),
    }),
};

export type Member = Awaited<ReturnType<NonNullable<ReturnType<typeof memberQueries.list>['queryFn']>>>[number];

export function useAddMember(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: { svc_user_id: number; role: 'Admin' | 'Sales' }) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/members', { params: { path: { appId } }, body: input })),
    onSuccess: () => client.invalidateQueries({ queryKey: memberQueries.all(appId) }),
  });
}

export function useRemoveMember(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (svcUserId: string) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/member/{svcUserId}', { params: { path: { appId, svcUserId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: memberQueries.all(appId) }),
  });
}
