import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

/** The project's site tracking settings (docs/site-tracking.md): Master and Admin only. */
export const siteQueries = {
  all: (appId: string) => ['site', appId] as const,
  settings: (appId: string) =>
    queryOptions({
      queryKey: [...siteQueries.all(appId), 'settings'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/site', { params: { path: { appId } } })),
    }),
  /** When the snippet last sent an event (docs/site-tracking.md, "Checking the installation"). */
  lastEvent: (appId: string) =>
    queryOptions({
      queryKey: [...siteQueries.all(appId), 'last-event'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/site/last-event', { params: { path: { appId } } })),
    }),
};

export type SiteSettings = Awaited<ReturnType<NonNullable<ReturnType<typeof siteQueries.settings>['queryFn']>>>;

/** Saves the origins the snippet may send from (the edit-project call). */
export function useSaveSiteOrigins(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (origins: string) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}', { params: { path: { appId } }, body: { site_origins: origins } })),
    onSuccess: () =>
      Promise.all([client.invalidateQueries({ queryKey: siteQueries.all(appId) }), client.invalidateQueries({ queryKey: ['projects'] })]),
  });
}

/** Replaces the site key or the site secret. */
export function useRotateSite(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (what: 'key' | 'secret') =>
      what === 'key'
        ? unwrap(await api.POST('/api/v1.7/app/{appId}/site/key', { params: { path: { appId } } }))
        : unwrap(await api.POST('/api/v1.7/app/{appId}/site/secret', { params: { path: { appId } } })),
    onSuccess: (settings) => client.setQueryData(siteQueries.settings(appId).queryKey, settings),
  });
}
