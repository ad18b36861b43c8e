import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import baseEnUS from '../../locales/en-US/index.ts';
import { allLazyTexts } from '../../locales/lazy.ts';
import baseZhCN from '../../locales/zh-CN/index.ts';

/** Each language's texts: those of the first load and those loaded with their pages (src/locales/lazy.ts). */
const enUS = { ...baseEnUS, ...(await allLazyTexts('en-US')) };
const zhCN = { ...baseZhCN, ...(await allLazyTexts('zh-CN')) };

/** Every text of a locale by its key path. */
function texts(tree: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(path, v);
    else for (const [p, s] of texts(v, path)) out.set(p, s);
  }
  return out;
}

/** Texts whose count is not a noun's ("3 new", "Recipients who will get it: 3"): one form reads right for every count. */
const NOT_PLURAL = [
  'customers.newActivity',
  'links.newViews',
  'campaigns.compose.recipientCount',
  'campaigns.progress.done',
  'webhooks.replayed',
];

const en = texts(enUS);
const pluralKeys = [...en.keys()].filter((k) => k.endsWith('_one')).map((k) => k.slice(0, -'_one'.length));
const i18n = i18next.createInstance();

beforeAll(async () => {
  await i18n.init({
    resources: { 'en-US': { translation: enUS }, 'zh-CN': { translation: zhCN } },
    lng: 'en-US',
    fallbackLng: 'en-US',
    interpolation: { escapeValue: false },
  });
});

describe('counts in the texts', () => {
  it('every en-US text that shows a {{count}} of something has its plural forms', () => {
    const single = [...en].filter(([k, v]) => v.includes('{{count}}') && !/_(one|other)$/.test(k) && !NOT_PLURAL.includes(k));
    expect(single.map(([k]) => k)).toEqual([]);
    expect(pluralKeys.filter((k) => !en.has(`${k}_other`))).toEqual([]);
  });

  it('says 1 in the singular and 2 in the plural, for each plural text of en-US', () => {
    expect(pluralKeys.length).toBeGreaterThanOrEqual(10);
    for (const key of pluralKeys) {
      const values = { subject: 'S', file: 'f.csv', duration: '5 s', formatted: '1,234', what: 'W' };
      const fill = (s: string, count: number) => s.replace(/{{(\w+)}}/g, (_m, n: string) => String({ ...values, count }[n]));
      expect(i18n.t(key as never, { ...values, count: 1, lng: 'en-US' }), key).toBe(fill(en.get(`${key}_one`) as string, 1));
      expect(i18n.t(key as never, { ...values, count: 2, lng: 'en-US' }), key).toBe(fill(en.get(`${key}_other`) as string, 2));
    }
  });

  it('a campaign for one recipient says "1 recipient"; Chinese, without plurals, says the same for any count', () => {
    const one = i18n.t('campaigns.compose.confirmBody', { subject: 'News', count: 1, lng: 'en-US' });
    expect(one).toContain('mailed to 1 recipient (');
    expect(i18n.t('campaigns.compose.confirmBody', { subject: 'News', count: 2, lng: 'en-US' })).toContain('mailed to 2 recipients (');
    expect(i18n.t('campaigns.compose.confirmBody', { subject: 'News', count: 1, lng: 'zh-CN' })).toContain('1 位收件人');
    expect(i18n.t('campaigns.compose.confirmBody', { subject: 'News', count: 7, lng: 'zh-CN' })).toContain('7 位收件人');
  });
});
