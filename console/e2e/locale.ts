import enUS from '../src/locales/en-US/index.ts';
import zhCN from '../src/locales/zh-CN/index.ts';

export type Lang = 'en-US' | 'zh-CN';
const LOCALES = { 'en-US': enUS, 'zh-CN': zhCN } as const;

/** A console text by its key, as the locale files say it, with `{{name}}` placeholders filled. */
export function text(lang: Lang, key: string, values: Record<string, string | number> = {}): string {
  const found = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], LOCALES[lang]);
  if (typeof found !== 'string') throw new Error(`no text ${key} in ${lang}`);
  return found.replace(/{{(\w+)}}/g, (_m, name: string) => String(values[name] ?? `{{${name}}}`));
}

/**
 * A button's name as a person reads it: antd puts a space between the two characters of a
 * two-character Chinese label (登录 is drawn 登 录), so the space may be there or not.
 */
export function buttonName(lang: Lang, key: string): RegExp {
  const escaped = [...text(lang, key)].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('\\s?')}$`);
}
