import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { projectQueries } from '../projects/index.ts';

/** The project's logo (docs/projects.md, "Logo"): Master and Admin. */
export const logoQuery = (appId: string) =>
  queryOptions({
    queryKey: ['logo', appId],
    queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/logo', { params: { path: { appId } } })),
  });

export function useLogo(appId: string) {
  const client = useQueryClient();
  const done = (logo: Awaited<ReturnType<NonNullable<ReturnType<typeof logoQuery>['queryFn']>>>) => {
    client.setQueryData(logoQuery(appId).queryKey, logo);
    return Promise.all([
      client.invalidateQueries({ queryKey: projectQueries.all() }),
      client.invalidateQueries({ queryKey: ['audit', appId] }),
    ]);
  };
  const upload = useMutation({
    meta: { silent: true },
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return unwrap(
        await api.POST('/api/v1.7/app/{appId}/logo', {
          params: { path: { appId } },
          // multipart/form-data: the browser sets the type and boundary.
          body: form as never,
          bodySerializer: (b: unknown) => b as FormData,
        }),
      );
    },
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1.7/app/{appId}/logo', { params: { path: { appId } } })),
    onSuccess: done,
  });
  return { upload, remove };
}
