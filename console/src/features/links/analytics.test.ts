import { describe, expect, it } from 'vitest';
import { type ChartWords, pageChart, percent, readerTag, versionOf, versionValue } from './analytics.ts';

const words: ChartWords = {
  page: (n) => `Page ${n}`,
  bar: (time, reach) => `${time} · ${reach}%`,
  unread: 'not read',
  dropOff: 'Drop-off',
  axis: '{value} s',
  tooltip: (n, time, views, total) => `${n}: ${time} ${views}/${total}`,
  time: (s) => `${s} s`,
};

describe('pageChart', () => {
  const version = {
    fileId: 'f',
    version: 2,
    current: true,
    views: 4,
    pages: [
      { page: 1, views: 4, avgSeconds: 20, reach: 1 },
      { page: 2, views: 1, avgSeconds: 12.5, reach: 0.25 },
      { page: 3, views: 0, avgSeconds: 0, reach: 0 },
    ],
    dropOffPage: { page: 1, views: 3, share: 0.75 },
  };

  it('has every page, the unread ones at 0 with their words, the drop-off page marked, images where there are', () => {
    const image = { url: 'data:image/webp;base64,AA', width: 750, height: 422 };
    expect(pageChart(version, [image, undefined], words)).toEqual({
      categories: ['Page 1', 'Page 2', 'Page 3'],
      values: [20, 12.5, 0],
      images: [image, null, null],
      texts: ['20 s · 100%', '12.5 s · 25%', 'not read'],
      tooltips: ['1: 20 s 4/4', '2: 12.5 s 1/4', '3: 0 s 0/4'],
      marked: { index: 0, text: 'Drop-off' },
      axis: '{value} s',
    });
  });

  it('marks nothing when no view ended before the last page', () => {
    expect(pageChart({ ...version, dropOffPage: null }, [], words).marked).toBeNull();
  });
});

describe('versions and readers', () => {
  it('names a version by its number and file, and finds it again', () => {
    const versions = [
      { fileId: 'a', version: 2 },
      { fileId: 'a', version: 1 },
      { fileId: 'b', version: 1 },
    ];
    expect(versionValue(versions[2] as { fileId: string; version: number })).toBe('1:b');
    expect(versionOf(versions, '1:a')).toBe(versions[1]);
    expect(versionOf(versions, '3:a')).toBeUndefined();
    expect(versionOf(versions, undefined)).toBeUndefined();
  });

  it('rounds shares to whole percentages, and tells anonymous readers apart by a short tag', () => {
    expect([percent(0.5833), percent(1), percent(0)]).toEqual([58, 100, 0]);
    expect(readerTag('Xy-_9abcdefgh')).toBe('Xy9abc');
  });
});
