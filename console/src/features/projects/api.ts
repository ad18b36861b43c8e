import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

export const projectQueries = {
  all: () => ['projects'] as const,
  mine: () =>
    queryOptions({
      queryKey: [...projectQueries.all(), 'mine'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/my-apps')),
    }),
  pending: () =>
    queryOptions({
      queryKey: [...projectQueries.all(), 'memberships', 'pending'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/user/memberships', { params: { query: { state: 'pending' } } })),
    }),
};

export type Project = Awaited<ReturnType<NonNullable<ReturnType<typeof projectQueries.mine>['queryFn']>>>[number];
export type PendingMembership = Awaited<ReturnType<NonNullable<ReturnType<typeof projectQueries.pending>['queryFn']>>>[number];

export function useCreateProject() {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: { name: string; description?: string; region?: string }) =>
      unwrap(await api.POST('/api/v1.7/apps', { body: input })),
    onSuccess: () => client.invalidateQueries({ queryKey: projectQueries.all() }),
  });
}

export function useAnswerMembership() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ appId, answer }: { appId: string; answer: 'accept' | 'leave' }) =>
      answer === 'accept'
        ? unwrap(await api.POST('/api/v1.7/user/membership/{appId}/accept', { params: { path: { appId } } }))
        : unwrap(await api.POST('/api/v1.7/user/membership/{appId}/leave', { params: { path: { appId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: projectQueries.all() }),
  });
}
