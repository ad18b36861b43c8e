import { api } from '../../shared/api/client.ts';
import type { Language } from '../../shared/i18n/language.ts';

/**
 * Tells the server the language the member reads the console in, as their alerts' language (inbox
 * entries, e-mails): when they switch the console's language, and when they make their account. Their
 * settings page sets it apart afterwards. Best effort: signed out, or a failure, changes nothing.
 */
export function tellAlertLanguage(language: Language): void {
  void api.PUT('/api/v1.7/user/notification-settings', { body: { locale: language } }).catch(() => undefined);
}
