import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { projectQueries } from '../projects/index.ts';

export const AUDIT_PAGE_SIZE = 20;

export const settingsQueries = {
  /** Who did what in the project, newest first (Master/Admin); one row more says whether there is a next page. */
  audit: (appId: string, page: number) =>
    queryOptions({
      queryKey: ['audit', appId, page],
      queryFn: async () => {
        const rows = unwrap(
          await api.GET('/api/v1.7/app/{appId}/audit-log', {
            params: { path: { appId }, query: { start_index: (page - 1) * AUDIT_PAGE_SIZE, count: AUDIT_PAGE_SIZE + 1 } },
          }),
        );
        return { rows: rows.slice(0, AUDIT_PAGE_SIZE), hasMore: rows.length > AUDIT_PAGE_SIZE };
      },
      placeholderData: keepPreviousData,
    }),
};

export type AuditEntry = Awaited<ReturnType<NonNullable<ReturnType<typeof settingsQueries.audit>['queryFn']>>>['rows'][number];

export function useEditProject(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (input: { name: string; description: string; region: string; share_domain: string }) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}', { params: { path: { appId } }, body: input })),
    onSuccess: () =>
      Promise.all([client.invalidateQueries({ queryKey: projectQueries.all() }), client.invalidateQueries({ queryKey: ['audit', appId] })]),
  });
}

/** A new project secret at once; the replaced one keeps working until `previousSecretValidUntil`. */
export function useRotateSecret(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1.7/app/{appId}/secret-rotations', { params: { path: { appId } } })),
    onSuccess: () =>
      Promise.all([client.invalidateQueries({ queryKey: projectQueries.all() }), client.invalidateQueries({ queryKey: ['audit', appId] })]),
  });
}
