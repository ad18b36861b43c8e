import enUS from '../src/locales/en-US/index.ts';
import { allLazyTexts } from '../src/locales/lazy.ts';
import zhCN from '../src/locales/zh-CN/index.ts';

export type Lang = 'en-US' | 'zh-CN';
// With the texts that load with their pages (src/locales/lazy.ts).
const LOCALES = {
  'en-US': { ...enUS, ...(await allLazyTexts('en-US')) },
  'zh-CN': { ...zhCN, ...(await allLazyTexts('zh-CN')) },
} as const;

const lookup = (lang: Lang, key: string): unknown =>
  key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], LOCALES[lang]);

/**
 * A console text by its key, as the locale files say it, with `{{name}}` placeholders filled. A key
 * with plural forms (`key_one`, `key_other`) takes the form of `count` in the language, as i18next does.
 */
export function text(lang: Lang, key: string, values: Record<string, string | number> = {}): string {
  const plural = typeof values.count === 'number' ? `${key}_${new Intl.PluralRules(lang).select(values.count)}` : undefined;
  const found = (plural !== undefined ? lookup(lang, plural) : undefined) ?? lookup(lang, key);
  if (typeof found !== 'string') throw new Error(`no text ${key} in ${lang}`);
  return found.replace(/{{(\w+)}}/g, (_m, name: string) => String(values[name] ?? `{{${name}}}`));
}

/**
 * A button's accessible name for a text, as antd draws it: a text of two CJK characters gets a space
 * between them (antd's autoInsertSpace), and an icon's label (its name, e.g. "download") may come first.
 */
export function buttonName(lang: Lang, key: string, values: Record<string, string | number> = {}): RegExp {
  const t = text(lang, key, values);
  const escaped = t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const spaced = /^[\u4e00-\u9fff]{2}$/.test(t) ? `${t[0]} ?${t[1]}` : escaped;
  return new RegExp(`^(?:[a-z-]+ )?${spaced}$`);
}
