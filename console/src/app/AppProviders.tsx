import { App as AntApp, ConfigProvider } from 'antd';
import { type ReactNode, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { errorReporter } from '../shared/api/queryClient.ts';
import { errorDetail, errorText } from '../shared/i18n/errors.ts';
import { languagePack } from '../shared/i18n/i18n.ts';
import { setTimeLocale } from '../shared/time/serverTime.ts';
import { consoleTheme } from './theme.ts';

/** Reports failed queries and mutations once, through antd's App (which follows the theme and locale). */
function ErrorReporter() {
  const { message } = AntApp.useApp();
  useEffect(() => {
    errorReporter.current = (error) => {
      const detail = errorDetail(error);
      void message.error(detail ? `${errorText(error)} (${detail})` : errorText(error));
    };
    return () => {
      errorReporter.current = null;
    };
  }, [message]);
  return null;
}

/** Whether the user asked their system for less motion (read once: a change applies on reload). */
const reducedMotion = typeof window !== 'undefined' && window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;
const theme = consoleTheme(!reducedMotion);

/**
 * antd's locale (loaded with the language: src/shared/i18n/i18n.ts), dayjs's and the page's `lang`
 * follow i18next's language; antd's animations (dialogs zooming, drawers sliding) are off for users
 * who prefer reduced motion.
 */
export function AppProviders({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation();
  const language = i18n.language;
  setTimeLocale(language);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  return (
    <ConfigProvider locale={languagePack(language)?.antd} theme={theme}>
      <AntApp>
        <ErrorReporter />
        {children}
      </AntApp>
    </ConfigProvider>
  );
}
