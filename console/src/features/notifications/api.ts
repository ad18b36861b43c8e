import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { INBOX_KEY, SETTINGS_KEY } from './unread.ts';

export const INBOX_PAGE = 20;

export const inboxQueries = {
  /** The member's notifications, newest first, a page at a time; `unread` only those not yet read. */
  list: (unread: boolean) =>
    infiniteQueryOptions({
      queryKey: [...INBOX_KEY, 'list', { unread }],
      initialPageParam: 0,
      queryFn: async ({ pageParam }) =>
        unwrap(
          await api.GET('/api/v1.7/notifications', {
            params: { query: { start_index: pageParam, count: INBOX_PAGE, ...(unread ? { unread: 1 } : {}) } },
          }),
        ),
      getNextPageParam: (last, pages) => (last.length < INBOX_PAGE ? undefined : pages.length * INBOX_PAGE),
      staleTime: 10_000,
    }),
};

export type Notification = Awaited<ReturnType<NonNullable<ReturnType<typeof inboxQueries.list>['queryFn']>>>[number];

/** Marks one notification read (opened); the bell and the lists are read again. */
export function useMarkRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.POST('/api/v1.7/notifications/{notificationId}/read', { params: { path: { notificationId: id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: INBOX_KEY }),
  });
}

/** Marks read every unread notification up to `until` (the newest shown: one that came meanwhile stays unread). */
export function useMarkAllRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (until: string | undefined) =>
      unwrap(await api.POST('/api/v1.7/notifications/read', { body: until ? { until } : {} })),
    onSuccess: () => client.invalidateQueries({ queryKey: INBOX_KEY }),
  });
}

export const settingsQuery = () =>
  queryOptions({
    queryKey: SETTINGS_KEY,
    queryFn: async () => unwrap(await api.GET('/api/v1.7/user/notification-settings')),
  });

export type Settings = Awaited<ReturnType<NonNullable<ReturnType<typeof settingsQuery>['queryFn']>>>;

export interface SettingsChange {
  signals?: string;
  read_threshold?: number;
  revisit_days?: number;
  inbox?: number;
  email?: string;
  time_zone?: string;
  digest_hour?: number;
  locale?: string;
  projects?: { app_id: string; scope: string; signals: string | null; read_threshold: number | null; revisit_days: number | null }[];
}

/** Saves the member's notification settings; the form shows its own failures. */
export function useSaveSettings() {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (body: SettingsChange) => unwrap(await api.PUT('/api/v1.7/user/notification-settings', { body })),
    onSuccess: (settings) => client.setQueryData(settingsQuery().queryKey, settings),
  });
}
