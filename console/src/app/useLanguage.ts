import { useTranslation } from 'react-i18next';
import { type Language, rememberLanguage } from '../shared/i18n/language.ts';

/** The console's language and the switch that moves i18next, antd and dayjs together (AppProviders follows i18next). */
export function useLanguage(): [Language, (language: Language) => void] {
  const { i18n } = useTranslation();
  const set = (language: Language) => {
    rememberLanguage(language);
    void i18n.changeLanguage(language);
  };
  return [i18n.language === 'zh-CN' ? 'zh-CN' : 'en-US', set];
}
