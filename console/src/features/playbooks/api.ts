import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import type { toBody } from './model.ts';

type PlaybookBody = ReturnType<typeof toBody>;

export const playbookQueries = {
  all: (appId: string) => ['playbooks', appId] as const,
  list: (appId: string) =>
    queryOptions({
      queryKey: [...playbookQueries.all(appId), 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/playbooks', { params: { path: { appId } } })),
    }),
  item: (appId: string, playbookId: string) =>
    queryOptions({
      queryKey: [...playbookQueries.all(appId), 'item', playbookId],
      queryFn: async () =>
        unwrap(await api.GET('/api/v1.7/app/{appId}/playbook/{playbookId}', { params: { path: { appId, playbookId } } })),
      meta: { silent: true },
    }),
  /** The project's links shared with anyone, for a trigger's "which link". */
  links: (appId: string) =>
    queryOptions({
      queryKey: [...playbookQueries.all(appId), 'links'],
      queryFn: async () => {
        const rows = unwrap(
          await api.GET('/api/v1.7/app/{appId}/links', { params: { path: { appId }, query: { start_index: 0, count: 200 } } }),
        );
        return rows.filter((l) => l.isDirectional === 0).map((l) => ({ id: l.id, name: l.name || l.shortName || l.id }));
      },
    }),
  /** The project's sequences, for the enrol and exit actions. */
  sequences: (appId: string) =>
    queryOptions({
      queryKey: ['sequences', appId, 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/sequences', { params: { path: { appId } } })),
    }),
};

export type PlaybookSummary = Awaited<ReturnType<NonNullable<ReturnType<typeof playbookQueries.list>['queryFn']>>>[number];

/** Makes a playbook (no id) or changes one; the editor shows its own failures. */
export function useSavePlaybook(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async ({ id, body }: { id: string | undefined; body: PlaybookBody }) =>
      id === undefined
        ? unwrap(await api.POST('/api/v1.7/app/{appId}/playbooks', { params: { path: { appId } }, body }))
        : unwrap(await api.PUT('/api/v1.7/app/{appId}/playbook/{playbookId}', { params: { path: { appId, playbookId: id } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: playbookQueries.all(appId) }),
  });
}

export function useDeletePlaybook(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (playbookId: string) =>
      unwrap(await api.DELETE('/api/v1.7/app/{appId}/playbook/{playbookId}', { params: { path: { appId, playbookId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: playbookQueries.all(appId) }),
  });
}

/** What the draft would have done over the last 30 days; nothing is done. */
export function useDryRun(appId: string) {
  return useMutation({
    meta: { silent: true },
    mutationFn: async (body: PlaybookBody) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/playbook-dry-runs', { params: { path: { appId } }, body })),
  });
}

export type DryRun = Awaited<ReturnType<ReturnType<typeof useDryRun>['mutateAsync']>>;
