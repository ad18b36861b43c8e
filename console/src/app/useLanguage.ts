import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { tellAlertLanguage } from '../features/notifications/language.api.ts';
import { session } from '../shared/api/session.ts';
import { type Language, rememberLanguage } from '../shared/i18n/language.ts';

/**
 * The console's language and the switch that moves i18next, antd and dayjs together (AppProviders
 * follows i18next); a signed-in member's alerts follow the switch too.
 */
export function useLanguage(): [Language, (language: Language) => void] {
  const { i18n } = useTranslation();
  const client = useQueryClient();
  const set = (language: Language) => {
    rememberLanguage(language);
    void i18n.changeLanguage(language);
    if (session.signedIn()) tellAlertLanguage(language, client);
  };
  return [i18n.language === 'zh-CN' ? 'zh-CN' : 'en-US', set];
}
