import { describe, expect, it } from 'vitest';
import { newActivity } from './activity.ts';

describe("a list row's new activity", () => {
  it('is nothing beside "New" for a customer just made or imported (their creation record is the tag)', () => {
    expect(newActivity({ isNew: 1, newCount: 1 })).toBe(0);
    expect(newActivity({ isNew: 1, newCount: 0 })).toBe(0);
  });

  it('counts what the customer did besides being made, and everything new of a customer already seen', () => {
    expect(newActivity({ isNew: 1, newCount: 3 })).toBe(2);
    expect(newActivity({ isNew: 0, newCount: 1 })).toBe(1);
    expect(newActivity({ isNew: 0, newCount: 0 })).toBe(0);
  });
});
