/**
 * The alerts' public entry: the header's bell (the unread count, opening the inbox) and the inbox's
 * cache key, which the live stream refreshes when an alert arrives. Its pages are routes of their own.
 */
export { InboxBell } from './components/InboxBell.tsx';
export { INBOX_KEY } from './unread.ts';
