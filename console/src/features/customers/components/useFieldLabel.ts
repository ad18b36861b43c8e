import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import enUS from '../../../locales/en-US/index.ts';

const BUILT_IN = new Set(Object.keys(enUS.customers.fields));

/** A customer attribute's label: the console's own, in the user's language, for the built-in ones; the metadata's title for the others. */
export function useFieldLabel(): (name: string, title: string) => string {
  const { t } = useTranslation();
  return useCallback((name: string, title: string) => (BUILT_IN.has(name) ? t(`customers.fields.${name as 'name'}`) : title || name), [t]);
}
