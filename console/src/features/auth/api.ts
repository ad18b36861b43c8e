import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

export const authQueries = {
  /** Public: the server's version, TIME_ZONE and whether sign-up is open. */
  serverInfo: () =>
    queryOptions({
      queryKey: ['server-info'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/server-info')),
      staleTime: 5 * 60_000,
    }),
  /** The signed-in user. */
  me: () =>
    queryOptions({
      queryKey: ['me'],
      queryFn: async () => unwrap(await api.GET('/svcuser/oauth2/getUserInfoByAccessToken', { params: { query: {} } })),
      staleTime: 5 * 60_000,
    }),
};

export type Me = Awaited<ReturnType<NonNullable<ReturnType<typeof authQueries.me>['queryFn']>>>;
