import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from './client.ts';

/** The signed-in user: every area of the console reads it (the layout, roles on the project's pages). */
export const meQuery = () =>
  queryOptions({
    queryKey: ['me'],
    queryFn: async () => unwrap(await api.GET('/svcuser/oauth2/getUserInfoByAccessToken', { params: { query: {} } })),
    staleTime: 5 * 60_000,
  });

export type Me = Awaited<ReturnType<NonNullable<ReturnType<typeof meQuery>['queryFn']>>>;
