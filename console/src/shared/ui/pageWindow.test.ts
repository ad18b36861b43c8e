import { describe, expect, it } from 'vitest';
import { pageWindow } from './pageWindow.ts';

describe('pageWindow', () => {
  it('offers every page when they are few', () => {
    expect(pageWindow(1, 1, 2)).toEqual([1]);
    expect(pageWindow(2, 2, 2)).toEqual([1, 2]);
    expect(pageWindow(4, 9, 2)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('offers the first, the last and the pages around the current one, with jumps over the rest', () => {
    expect(pageWindow(1, 20, 2)).toEqual([1, 2, 3, 4, 5, 'forward', 20]);
    expect(pageWindow(10, 20, 2)).toEqual([1, 'back', 8, 9, 10, 11, 12, 'forward', 20]);
    expect(pageWindow(20, 20, 2)).toEqual([1, 'back', 16, 17, 18, 19, 20]);
    expect(pageWindow(4, 20, 2)).toEqual([1, 2, 3, 4, 5, 6, 'forward', 20]);
  });

  it('offers fewer pages on a phone', () => {
    expect(pageWindow(10, 20, 1)).toEqual([1, 'back', 9, 10, 11, 'forward', 20]);
    expect(pageWindow(1, 8, 1)).toEqual([1, 2, 3, 'forward', 8]);
  });
});
