import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import enUS from '../../../locales/en-US/index.ts';
import zhCN from '../../../locales/zh-CN/index.ts';
import { outcomeParts } from './summary.ts';

const i18n = i18next.createInstance();
beforeAll(async () => {
  await i18n.init({
    resources: { 'en-US': { translation: enUS }, 'zh-CN': { translation: zhCN } },
    lng: 'en-US',
    interpolation: { escapeValue: false },
  });
});

describe("an import's summary", () => {
  it('says how many rows were created, updated, skipped and failed, each count with its noun', () => {
    const job = { created: 998, updated: 1, skipped: 0, failed: 10 };
    const parts = outcomeParts(i18n.t, job);
    expect(parts).toEqual({
      created: '998 customers created',
      updated: '1 customer updated',
      skipped: '0 rows skipped',
      failed: '10 rows failed',
    });
    expect(i18n.t('customers.import.done', { file: 'people.csv', ...parts })).toBe(
      'The import of people.csv is done: 998 customers created, 1 customer updated, 0 rows skipped, 10 rows failed.',
    );
    expect(outcomeParts(i18n.t, { created: 1, updated: 0, skipped: 1, failed: 1 }).failed).toBe('1 row failed');
  });

  it('in Chinese', async () => {
    const zh = await i18n.cloneInstance().changeLanguage('zh-CN');
    const parts = outcomeParts(zh, { created: 2, updated: 0, skipped: 1, failed: 1 });
    expect(zh('customers.import.finishedBanner', { file: 'a.csv', ...parts })).toBe(
      'a.csv 已导入完成：新建 2 个客户，更新 0 个客户，跳过 1 行，失败 1 行。',
    );
  });
});
