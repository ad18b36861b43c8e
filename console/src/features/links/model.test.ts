import { describe, expect, it } from 'vitest';
import { dwellByPage, linkKind, linkState } from './model.ts';

describe('dwellByPage', () => {
  it('sums each page over the views, in page order, in tenths of a second', () => {
    const logs = [
      {
        durations: [
          { pageIndex: '2', duration: '4100' },
          { pageIndex: '1', duration: '31250' },
        ],
      },
      {
        durations: [
          { pageIndex: '1', duration: '1000' },
          { pageIndex: '3', duration: '49' },
        ],
      },
    ];
    expect(dwellByPage(logs)).toEqual({ pages: [1, 2, 3], seconds: [32.3, 4.1, 0], views: 2 });
  });

  it('leaves out malformed entries and views that read nothing', () => {
    const logs = [
      {
        durations: [
          { pageIndex: 'x', duration: '10' },
          { pageIndex: '1', duration: '-5' },
        ],
      },
      { durations: null },
      {},
    ];
    expect(dwellByPage(logs)).toEqual({ pages: [], seconds: [], views: 0 });
  });

  it('adds a page read twice in one view (a page turned back to)', () => {
    const logs = [
      {
        durations: [
          { pageIndex: '1', duration: '1500' },
          { pageIndex: '2', duration: '500' },
          { pageIndex: '1', duration: '2500' },
        ],
      },
    ];
    expect(dwellByPage(logs)).toEqual({ pages: [1, 2], seconds: [4, 0.5], views: 1 });
  });
});

describe('linkState', () => {
  const now = new Date('2026-05-01T12:00:00Z');
  const parse = (t: string) => new Date(`${t.replace(' ', 'T')}Z`);
  it('a disabled link is disabled, whatever its expiry', () => {
    expect(linkState({ status: 0, expiresAt: '2030-01-01 00:00:00' }, now, parse)).toBe('disabled');
  });
  it('a link past its expiry is expired; before it, or without one, active', () => {
    expect(linkState({ status: 1, expiresAt: '2026-05-01 11:59:59' }, now, parse)).toBe('expired');
    expect(linkState({ status: 1, expiresAt: '2026-05-01 12:00:01' }, now, parse)).toBe('active');
    expect(linkState({ status: 1, expiresAt: null }, now, parse)).toBe('active');
  });
});

describe('linkKind', () => {
  it('names the API types, a file link by default', () => {
    expect([1, 2, 3, 4, 9].map(linkKind)).toEqual(['file', 'web', 'redirect', 'room', 'file']);
  });
});
