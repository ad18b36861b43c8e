import type { QueryClient } from '@tanstack/react-query';
import { api } from '../../shared/api/client.ts';
import type { Language } from '../../shared/i18n/language.ts';
import { SETTINGS_KEY } from './unread.ts';

/**
 * Tells the server the language the member reads the console in, as their alerts' language (inbox
 * entries, e-mails): when they switch the console's language, and when they make their account. Their
 * settings page sets it apart afterwards; its cached settings are read again, so that a save there does
 * not send the former language back. Best effort: signed out, or a failure, changes nothing.
 */
export function tellAlertLanguage(language: Language, client: QueryClient): void {
  void api
    .PUT('/api/v1.7/user/notification-settings', { body: { locale: language } })
    .then(() => client.invalidateQueries({ queryKey: SETTINGS_KEY }))
    .catch(() => undefined);
}
