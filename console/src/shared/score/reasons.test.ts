import { describe, expect, it } from 'vitest';
import { type ScoreReason, reasonWords, scoreText } from './reasons.ts';

const base = { text: '', points: 10, count: 1, lastAt: '2026-11-04 15:00:04', firstAt: '2026-11-04 15:00:04' };
const reason = (r: Partial<ScoreReason> & Pick<ScoreReason, 'kind'>): ScoreReason => ({ ...base, ...r });

describe('reasonWords', () => {
  it('says a deck read with its pages, or without when the score does not know them', () => {
    expect(reasonWords(reason({ kind: 'deck_read', title: 'Pricing', pages: 8, pageCount: 10 }))).toEqual({
      key: 'deck_read',
      values: { title: 'Pricing', pages: 8, pageCount: 10 },
    });
    expect(reasonWords(reason({ kind: 'deck_read', title: '  ' }))).toEqual({ key: 'deck_readAny', values: { title: undefined } });
  });

  it('says the time on key pages in minutes from a minute on, else in seconds', () => {
    expect(reasonWords(reason({ kind: 'key_page', title: 'Deck', keyPages: [3, 4], seconds: 130 })).values).toEqual({
      title: 'Deck',
      pages: '3, 4',
      minutes: 2,
    });
    expect(reasonWords(reason({ kind: 'key_page', keyPages: [2], seconds: 45 }))).toEqual({
      key: 'key_pageSeconds',
      values: { title: undefined, pages: '2', seconds: 45 },
    });
  });

  it('names a site key page by its title, else its prefix, else its address', () => {
    expect(reasonWords(reason({ kind: 'site_key_page', title: 'Plans', prefix: 'example.com/pricing' })).values).toEqual({ page: 'Plans' });
    expect(reasonWords(reason({ kind: 'site_key_page', prefix: '/demo', url: 'https://a.example/demo' })).values).toEqual({
      page: '/demo',
    });
    expect(reasonWords(reason({ kind: 'site_key_page', url: 'https://a.example/demo' })).values).toEqual({
      page: 'https://a.example/demo',
    });
  });

  it("tells a link's form from the site's, and says clicks and returns", () => {
    expect(reasonWords(reason({ kind: 'form', title: 'Pricing' })).key).toBe('form');
    expect(reasonWords(reason({ kind: 'form' })).key).toBe('formSite');
    expect(reasonWords(reason({ kind: 'mail_click', url: 'https://x.example' })).key).toBe('mail_click');
    expect(reasonWords(reason({ kind: 'return' })).key).toBe('return');
  });
});

describe('scoreText', () => {
  it('shows one decimal at most, in the language', () => {
    expect(scoreText(23.5, 'en-US')).toBe('23.5');
    expect(scoreText(40, 'zh-CN')).toBe('40');
    expect(scoreText(1234.56, 'en-US')).toBe('1,234.6');
  });
});
