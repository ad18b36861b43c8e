/**
 * The alerts' public entry: the header's bell (the unread count, opening the inbox) and the inbox's
 * cache key, which the live stream refreshes when an alert arrives; the alerts' language told from the
 * console's. Its pages are routes of their own.
 */
export { InboxBell } from './components/InboxBell.tsx';
export { INBOX_KEY } from './unread.ts';
export { tellAlertLanguage } from './language.api.ts';
