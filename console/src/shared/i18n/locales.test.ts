import { describe, expect, it } from 'vitest';
import baseEnUS from '../../locales/en-US/index.ts';
import { allLazyTexts } from '../../locales/lazy.ts';
import baseZhCN from '../../locales/zh-CN/index.ts';
import { detectLanguage } from './language.ts';

/** Each language's texts: those of the first load and those loaded with their pages (src/locales/lazy.ts). */
const enUS = { ...baseEnUS, ...(await allLazyTexts('en-US')) };
const zhCN = { ...baseZhCN, ...(await allLazyTexts('zh-CN')) };

/** Every key path of a locale, with its placeholders. */
function keys(tree: unknown, prefix = ''): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of Object.entries(tree as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(path, [...v.matchAll(/{{(\w+)}}/g)].map((m) => m[1] as string).sort());
    else for (const [p, vars] of keys(v, path)) out.set(p, vars);
  }
  return out;
}

describe('locales', () => {
  const en = keys(enUS);
  const zh = keys(zhCN);
  it('zh-CN has every key of en-US, and no other', () => {
    expect(
      [...en.keys()].filter((k) => !zh.has(k)),
      'missing in zh-CN',
    ).toEqual([]);
    expect(
      [...zh.keys()].filter((k) => !en.has(k)),
      'not in en-US',
    ).toEqual([]);
  });
  it('each text of zh-CN uses the placeholders of its en-US text', () => {
    const differing = [...en].filter(([k, vars]) => JSON.stringify(zh.get(k)) !== JSON.stringify(vars)).map(([k]) => k);
    expect(differing).toEqual([]);
  });
  it('no text is empty', () => {
    for (const [name, map] of [
      ['en-US', enUS],
      ['zh-CN', zhCN],
    ] as const) {
      const empty = [...keys(map)].filter(([k]) => {
        const value = k.split('.').reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], map);
        return typeof value === 'string' && value.trim() === '';
      });
      expect(empty, name).toEqual([]);
    }
  });
});

describe('detectLanguage', () => {
  it("takes the stored choice, else the browser's first known language, else en-US", () => {
    expect(detectLanguage('zh-CN', ['en-US'])).toBe('zh-CN');
    expect(detectLanguage(null, ['zh-TW', 'en'])).toBe('zh-CN');
    expect(detectLanguage(null, ['fr-FR', 'en-GB'])).toBe('en-US');
    expect(detectLanguage('xx', ['de'])).toBe('en-US');
  });
});
