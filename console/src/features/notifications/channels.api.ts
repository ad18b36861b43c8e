import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

export const channelQueries = {
  all: (appId: string) => ['notification-channels', appId] as const,
  list: (appId: string) =>
    queryOptions({
      queryKey: [...channelQueries.all(appId), 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/notification-channels', { params: { path: { appId } } })),
    }),
};

export type Channel = Awaited<ReturnType<NonNullable<ReturnType<typeof channelQueries.list>['queryFn']>>>[number];

/** A channel's fields as the form sends them (only those given change on an edit). */
export interface ChannelInput {
  kind?: string;
  name?: string;
  url?: string;
  secret?: string;
  events?: string;
  read_threshold?: number;
  locale?: string;
  active?: number;
}

/** Adds a channel (`id` undefined) or changes one; the form shows its own failures. */
export function useSaveChannel(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async ({ id, input }: { id: string | undefined; input: ChannelInput }) =>
      id === undefined
        ? unwrap(await api.POST('/api/v1.7/app/{appId}/notification-channels', { params: { path: { appId } }, body: input }))
        : unwrap(
            await api.PUT('/api/v1.7/app/{appId}/notification-channels/{channelId}', {
              params: { path: { appId, channelId: id } },
              body: input,
            }),
          ),
    onSuccess: () => client.invalidateQueries({ queryKey: channelQueries.all(appId) }),
  });
}

export function useRemoveChannel(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/v1.7/app/{appId}/notification-channels/{channelId}', { params: { path: { appId, channelId: id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: channelQueries.all(appId) }),
  });
}

/** Posts a test message now; answers what the platform said (a refusal is an answer, not an error). */
export function useTestChannel(appId: string) {
  return useMutation({
    mutationFn: async (id: string) =>
      unwrap(
        await api.POST('/api/v1.7/app/{appId}/notification-channels/{channelId}/test', { params: { path: { appId, channelId: id } } }),
      ),
  });
}
