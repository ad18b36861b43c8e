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

export const invitationQueries = {
  all: (appId: string) => ['invitations', appId] as const,
  /** The project's pending invitations (Master and Admins). */
  list: (appId: string) =>
    queryOptions({
      queryKey: [...invitationQueries.all(appId), 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/invitations', { params: { path: { appId } } })),
    }),
  /** What an invitation's link invites to (public: no session needed). */
  preview: (token: string) =>
    queryOptions({
      queryKey: ['invitation', token],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/invitation/{token}', { params: { path: { token } } })),
      retry: false,
      staleTime: Infinity,
      meta: { silent: true },
    }),
};

export type Invitation = Awaited<ReturnType<NonNullable<ReturnType<typeof invitationQueries.list>['queryFn']>>>[number];

export function useInvite(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: { email: string; role: 'Admin' | 'Sales' }) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/invitations', { params: { path: { appId } }, body: input })),
    onSuccess: () => client.invalidateQueries({ queryKey: invitationQueries.all(appId) }),
  });
}

export function useResendInvitation(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/invitations/{id}/resend', { params: { path: { appId, id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: invitationQueries.all(appId) }),
  });
}

export function useRevokeInvitation(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/v1.7/app/{appId}/invitations/{id}', { params: { path: { appId, id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: invitationQueries.all(appId) }),
  });
}

/** The signed-in user accepts an invitation's link: they join its project. */
export function useAcceptInvitation() {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (token: string) => unwrap(await api.POST('/api/v1.7/invitation/{token}/accept', { params: { path: { token } } })),
    onSuccess: () => client.invalidateQueries(),
  });
}
