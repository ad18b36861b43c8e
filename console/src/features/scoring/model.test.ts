import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, fieldOfDetail, formOf, inputOf, pagesText, parsePages } from './model.ts';

describe('page numbers typed', () => {
  it('reads numbers and ranges between commas, spaces or Chinese commas, in order, once each', () => {
    expect(parsePages('3, 4')).toEqual([3, 4]);
    expect(parsePages('7-9 3，4、3')).toEqual([3, 4, 7, 8, 9]);
    expect(parsePages(' 12 ')).toEqual([12]);
  });
  it('refuses what is not page numbers: empty, words, a range backwards or longer than a file may have', () => {
    for (const text of ['', ' , ', 'three', '3-', '9-7', '1-100000', '2.5']) expect(parsePages(text), text).toBeNull();
  });
  it('writes pages back with runs of three or more as ranges, and reads its own text again', () => {
    expect(pagesText([4, 3, 7, 8, 9, 12])).toBe('3, 4, 7-9, 12');
    expect(parsePages(pagesText([1, 2, 3, 5]))).toEqual([1, 2, 3, 5]);
  });
});

describe('the form and the API', () => {
  it('shows the deck share as a percentage and sends it back as a share', () => {
    const form = formOf({ ...DEFAULT_RULES, deckShare: 0.35, keyPages: [{ fileId: 'f-1', pages: [3, 4] }], siteKeyPages: ['/demo'] });
    expect(form.deckPercent).toBe(35);
    expect(form.keyPages).toEqual([{ fileId: 'f-1', pages: '3, 4' }]);
    const input = inputOf({ ...form, siteKeyPages: [' example.com/pricing '] });
    expect(input).toMatchObject({ deckShare: 0.35, halfLifeDays: 14, hotScore: 25, siteKeyPages: ['example.com/pricing'] });
    expect(input.keyPages).toEqual([{ fileId: 'f-1', pages: [3, 4] }]);
    expect(input.weights).toEqual(DEFAULT_RULES.weights);
  });
  it('leaves out a number left empty (the server keeps it)', () => {
    const form = formOf(DEFAULT_RULES);
    const input = inputOf({ ...form, hotScore: null, weights: { ...form.weights, form: null } });
    expect(input.hotScore).toBeUndefined();
    expect(Object.keys(input.weights)).not.toContain('form');
  });
});

describe('the field a refusal names', () => {
  const form = { keyPages: [{ fileId: 'f-1' }, { fileId: 'f-2' }, { fileId: 'f-1' }] };
  it('maps each setting of the server to its field', () => {
    expect(fieldOfDetail('half_life_days must be from 1 to 365', form)).toEqual(['halfLifeDays']);
    expect(fieldOfDetail('deck_share must be from 0.05 to 1', form)).toEqual(['deckPercent']);
    expect(fieldOfDetail('return_days must be a whole number', form)).toEqual(['returnDays']);
    expect(fieldOfDetail('hot_score must be a number', form)).toEqual(['hotScore']);
    expect(fieldOfDetail('weights.form must be from 0 to 1000', form)).toEqual(['weights', 'form']);
    expect(fieldOfDetail('key_pages[1].pages must be from 1 to 10000', form)).toEqual(['keyPages', 1, 'pages']);
    expect(fieldOfDetail('key_pages[0].fileId must be a file id', form)).toEqual(['keyPages', 0, 'fileId']);
    expect(fieldOfDetail('key_pages names file f-1 twice', form)).toEqual(['keyPages', 2, 'fileId']);
    expect(fieldOfDetail('site_key_pages[3] matches every page: name a page', form)).toEqual(['siteKeyPages', 3]);
  });
  it('names no field for what is no single one', () => {
    for (const detail of [
      'weights.speed is not a behaviour',
      'key_pages names 100 files at most',
      'weights must be JSON',
      'key_pages names file f-9 twice',
    ])
      expect(fieldOfDetail(detail, form), detail).toBeUndefined();
  });
});
