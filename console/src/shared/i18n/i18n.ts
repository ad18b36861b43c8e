import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import enUS from '../../locales/en-US/index.ts';
import zhCN from '../../locales/zh-CN/index.ts';
import { detectLanguage, storedLanguage } from './language.ts';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof enUS };
  }
}

void i18n.use(initReactI18next).init({
  resources: { 'en-US': { translation: enUS }, 'zh-CN': { translation: zhCN } },
  lng: detectLanguage(storedLanguage(), navigator.languages),
  fallbackLng: 'en-US',
  interpolation: { escapeValue: false },
});

export { i18n };
