import { describe, expect, it } from 'vitest';
import { defaultChannelLocale, hourText, signalList, takesSecret, timeZones, zonedTime } from './model.ts';

describe('notification settings model', () => {
  it('writes signals in the settings’ order, dropping unknown ones', () => {
    expect(signalList(['mention', 'deck_opened', 'nonsense', 'hot_lead'])).toBe('deck_opened,hot_lead,mention');
    expect(signalList(['forward', 'hot_lead', 'revisit', 'deck_read'])).toBe('deck_read,revisit,forward,hot_lead');
    expect(signalList([])).toBe('');
  });

  it('says which channel kinds take a secret and which language they speak by default', () => {
    expect(['slack', 'wecom', 'dingtalk', 'feishu', 'webhook'].map(takesSecret)).toEqual([false, false, true, true, true]);
    expect(defaultChannelLocale('dingtalk')).toBe('zh-CN');
    expect(defaultChannelLocale('slack')).toBe('en-US');
  });

  it('shows hours as a clock does and keeps a zone the browser lacks', () => {
    expect(hourText(8)).toBe('08:00');
    expect(hourText(23)).toBe('23:00');
    const zones = timeZones('Etc/GMT-14');
    expect(zones).toContain('Etc/GMT-14');
    expect(zones).toEqual([...zones].sort());
  });
});

describe('the next digest’s time', () => {
  it('is shown in the digest’s zone, whatever the server’s', () => {
    const text = zonedTime('2026-11-28 10:00:00', 'Asia/Shanghai', 'en-US');
    expect(text).toMatch(/\(Asia\/Shanghai\)$/);
    expect(zonedTime('not a time', 'Asia/Shanghai', 'en-US')).toBe('not a time');
  });
});
