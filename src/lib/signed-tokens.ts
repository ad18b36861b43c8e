import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

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

/** The value of a token this key signed, or null (malformed, or not signed with this key). */
export function verifyValue(key: SigningKey, token: string): unknown {
  if (token.length > 2048) return null;
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(key, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
