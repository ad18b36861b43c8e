import { describe, expect, it } from 'vitest';
import { linkKind, linkState } from './model.ts';

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
