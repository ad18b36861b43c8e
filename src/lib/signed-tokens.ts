import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { BoundedCache } from './bounded-cache.ts';

/**
 * Small values the server signs and later takes back from a client (the viewer's view tokens, a
 * link's unlock cookie): `<payload base64url>.<HMAC-SHA256 base64url, 128 bits>`. The key is derived
 * from the server's secret for one purpose, so a token made for one purpose never verifies for another.
 */
export type SigningKey = Buffer;

/** A key for one purpose (`label`), derived from the server's secret with HKDF-SHA256. */
export function deriveKey(secret: Buffer, label: string): SigningKey {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `rapport ${label}`, 32));
}

const mac = (key: SigningKey, payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, 16);

/** Signs a JSON value. */
export function signValue(key: SigningKey, value: unknown): string {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/**
 * Tokens whose signature was found good, per key, with their payload's text: a viewer's beacons bring
 * the same view token every few seconds, and the HMAC is most of a beacon's check. Only good
 * signatures are kept, and a token's payload is parsed again for each caller.
 */
const verified = new WeakMap<SigningKey, BoundedCache<string, string>>();

/** The payload's text of a token this key signed, or null. */
function signedPayload(key: SigningKey, token: string): string | null {
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(key, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return Buffer.from(payload, 'base64url').toString('utf8');
}

/** The value of a token this key signed, or null (malformed, or not signed with this key). */
export function verifyValue(key: SigningKey, token: string): unknown {
  if (token.length > 2048) return null;
  let cache = verified.get(key);
  if (cache === undefined) {
    cache = new BoundedCache(10_000);
    verified.set(key, cache);
  }
  let text = cache.peek(token);
  if (text === undefined) {
    const found = signedPayload(key, token);
    if (found === null) return null;
    cache.set(token, found);
    text = found;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
