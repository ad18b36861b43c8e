import { queryOptions, useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

export const authQueries = {
  /** Public: the server's version, TIME_ZONE and whether sign-up is open. */
  serverInfo: () =>
    queryOptions({
      queryKey: ['server-info'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/server-info')),
      staleTime: 5 * 60_000,
    }),
};

/** The forgotten password (docs/accounts.md): a reset code, then the code and a new password. */
export function useSendResetCode() {
  return useMutation({
    meta: { silent: true },
    mutationFn: async (username: string) => unwrap(await api.POST('/svcuser/console/password-code', { body: { username } })),
  });
}

export function useResetPassword() {
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: { username: string; code: string; password: string }) =>
      unwrap(await api.POST('/svcuser/console/password-reset', { body: input })),
  });
}
