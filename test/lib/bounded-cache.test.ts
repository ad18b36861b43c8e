// lanes: sqlite
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../src/lib/bounded-cache.ts';
import { createVisitorDescriber } from '../../src/lib/visitor.ts';
import { signValue, verifyValue } from '../../src/lib/signed-tokens.ts';

describe('BoundedCache', () => {
  it('builds a value once per key and keeps at most its limit, dropping the oldest', () => {
    const cache = new BoundedCache<string, number>(2);
    let builds = 0;
    const build = (n: number) => () => {
      builds++;
      return n;
    };
    expect(cache.get('a', build(1))).toBe(1);
    expect(cache.get('a', build(99))).toBe(1);
    expect(builds).toBe(1);
    cache.get('b', build(2));
    cache.get('c', build(3));
    expect(cache.peek('a')).toBeUndefined();
    expect(cache.peek('b')).toBe(2);
    expect(cache.peek('c')).toBe(3);
    // Setting a kept key again replaces it without dropping another.
    cache.set('c', 4);
    expect([cache.peek('b'), cache.peek('c')]).toEqual([2, 4]);
  });
});

describe('kept answers', () => {
  it('a token verified once still fails when tampered with, or under another key', () => {
    const key = randomBytes(32);
    const other = randomBytes(32);
    const token = signValue(key, { v: 'view', t: 1 });
    expect(verifyValue(key, token)).toEqual({ v: 'view', t: 1 });
    // The kept answer is parsed again for each caller: changing one caller's value changes no other's.
    const first = verifyValue(key, token) as { v: string };
    first.v = 'changed';
    expect(verifyValue(key, token)).toEqual({ v: 'view', t: 1 });
    expect(verifyValue(other, token)).toBeNull();
    const [payload, sig] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ v: 'other', t: 1 })).toString('base64url');
    expect(verifyValue(key, `${forged}.${sig}`)).toBeNull();
    expect(verifyValue(key, `${payload}.${sig.slice(0, -2)}AA`)).toBeNull();
  });

  it('a User-Agent described once is described the same again, each caller with its own object', () => {
    const describer = createVisitorDescriber({ truncateIps: true });
    const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const a = describer.describe(ua, '203.0.113.9');
    const b = describer.describe(ua, '198.51.100.7');
    expect(a).not.toBe(b);
    expect(b).toMatchObject({ clientName: 'Chrome', device: 'desktop', isBot: false, ip: '198.51.100.0' });
    expect({ ...a, ip: null }).toEqual({ ...b, ip: null });
    expect(describer.describe('curl/8.5.0', undefined).isBot).toBe(true);
  });
});
