import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

/** The event kinds a webhook can subscribe to (docs/events.md). */
export const DOMAIN_TYPES = ['Customer', 'BehaviourLog', 'Call', 'Link', 'LinkViewLog', 'Clue', 'Post'] as const;

export const webhookQueries = {
  all: (appId: string) => ['webhooks', appId] as const,
  list: (appId: string) =>
    queryOptions({
      queryKey: [...webhookQueries.all(appId), 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/webhooks', { params: { path: { appId } } })),
    }),
  deliveries: (appId: string, id: string) =>
    queryOptions({
      queryKey: [...webhookQueries.all(appId), 'item', id, 'deliveries'],
      queryFn: async () =>
        unwrap(await api.GET('/api/v1.7/app/{appId}/webhooks/{id}/deliveries', { params: { path: { appId, id }, query: { count: 50 } } })),
      // Pending deliveries change as the relay works: look again while any is pending.
      refetchInterval: (q) => (q.state.data?.some((d) => d.status === 'pending') ? 5000 : false),
    }),
};

export type Webhook = Awaited<ReturnType<NonNullable<ReturnType<typeof webhookQueries.list>['queryFn']>>>[number];
export type Delivery = Awaited<ReturnType<NonNullable<ReturnType<typeof webhookQueries.deliveries>['queryFn']>>>[number];

export function useCreateWebhook(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: { url: string; domain_types?: string }) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/webhooks', { params: { path: { appId } }, body: input })),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookQueries.all(appId) }),
  });
}

export function useRemoveWebhook(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => unwrap(await api.DELETE('/api/v1.7/app/{appId}/webhooks/{id}', { params: { path: { appId, id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookQueries.all(appId) }),
  });
}

/** Sends one test event now; answers what the receiver said (a failing receiver is an answer, not an error). */
export function useTestWebhook(appId: string) {
  return useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/webhooks/{id}/test', { params: { path: { appId, id } } })),
  });
}

/** Sends again every dead-lettered delivery (and re-enables a disabled webhook). */
export function useReplayWebhook(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { id: string; eventIds?: string }) =>
      unwrap(
        await api.POST('/api/v1.7/app/{appId}/webhooks/{id}/replay', {
          params: { path: { appId, id: input.id } },
          body: input.eventIds ? { event_ids: input.eventIds } : {},
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookQueries.all(appId) }),
  });
}
