import { use } from 'react';
import { type UseTranslationResponse, useTranslation } from 'react-i18next';
import { LAZY_TEXTS, type LazyNamespace } from '../../locales/lazy.ts';
import { i18n } from './i18n.ts';
import { LANGUAGES, type Language } from './language.ts';

const loads = new Map<string, Promise<void>>();

/**
 * Loads a namespace's texts in a language into i18next, once (the same promise for every caller; a
 * failed load is tried again next time).
 */
export function loadTexts(namespace: LazyNamespace, language: string): Promise<void> {
  const lang: Language = (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : 'en-US';
  const key = `${lang}:${namespace}`;
  let load = loads.get(key);
  if (load === undefined) {
    load = LAZY_TEXTS[namespace][lang]().then((texts) => {
      i18n.addResourceBundle(lang, 'translation', { [namespace]: texts.default }, true, true);
    });
    load.catch(() => loads.delete(key));
    loads.set(key, load);
  }
  return load;
}

/**
 * `useTranslation`, once the namespace's texts are there in the language shown: the component
 * suspends until they are (the nearest Suspense shows its fallback), on a switch of language too.
 */
export function useLazyTexts(namespace: LazyNamespace): UseTranslationResponse<'translation', undefined> {
  const translation = useTranslation();
  use(loadTexts(namespace, translation.i18n.language));
  return translation;
}
