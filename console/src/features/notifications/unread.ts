import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';

/** Every cached read of the inbox (its pages and the unread count): what an alert, or marking one read, changes. */
export const INBOX_KEY = ['notifications'] as const;

/** The member's cached notification settings (api.ts's `settingsQuery`). */
export const SETTINGS_KEY = ['notification-settings'] as const;

/**
 * How many of the member's notifications are unread, in every project: the header's bell. Read again
 * every minute (and when an alert comes through the live stream, features/live/useLiveStream.tsx).
 */
export const unreadQuery = () =>
  queryOptions({
    queryKey: [...INBOX_KEY, 'unread'],
    queryFn: async () => unwrap(await api.GET('/api/v1.7/notifications/unread-count')).unread,
    refetchInterval: 60_000,
    staleTime: 30_000,
  });
