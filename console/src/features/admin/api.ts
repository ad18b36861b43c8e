import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

export const adminQueries = {
  /** Whether the signed-in user is one of the server's administrators (ADMIN_USER_IDS): they see the clients page. */
  me: () =>
    queryOptions({
      queryKey: ['admin', 'me'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/admin/me')),
      staleTime: 5 * 60_000,
    }),
  /** The server's OAuth clients: only the server's administrators may read them. */
  clients: () =>
    queryOptions({
      queryKey: ['admin', 'clients'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/admin/clients')),
      meta: { silent: true },
      retry: false,
      staleTime: 5 * 60_000,
    }),
};

export type OAuthClient = Awaited<ReturnType<NonNullable<ReturnType<typeof adminQueries.clients>['queryFn']>>>[number];

export function useCreateClient() {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: { name: string; client_id?: string; client_secret?: string }) =>
      unwrap(await api.POST('/api/v1.7/admin/clients', { body: input })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['admin', 'clients'] }),
  });
}

export function useRevokeClient() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (clientId: string) =>
      unwrap(await api.DELETE('/api/v1.7/admin/clients/{clientId}', { params: { path: { clientId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['admin', 'clients'] }),
  });
}
