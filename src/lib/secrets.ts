import { createHash, randomBytes, randomFillSync, randomInt, scrypt, timingSafeEqual } from 'node:crypto';

/** Random bytes drawn in 4 KiB at a time: a draw per token cost more than the rest of a viewer page. */
const tokenPool = Buffer.alloc(4096);
let tokenPoolAt = tokenPool.length;

/** A URL-safe random token with `bytes` bytes of entropy (access tokens use 32: 256 bits). Each byte is used once. */
export function randomToken(bytes = 32): string {
  if (bytes > 256) return randomBytes(bytes).toString('base64url');
  if (tokenPoolAt + bytes > tokenPool.length) {
    randomFillSync(tokenPool);
    tokenPoolAt = 0;
  }
  const token = tokenPool.toString('base64url', tokenPoolAt, tokenPoolAt + bytes);
  tokenPoolAt += bytes;
  return token;
}

/** Hash of a high-entropy secret (token, client secret) for storage and lookup. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Constant-time equality of two strings (compares their SHA-256 digests, so lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export function randomDigits(length: number): string {
  let out = String(randomInt(1, 10));
  while (out.length < length) out += String(randomInt(0, 10));
  return out;
}

/**
 * Password hashing with scrypt at an OWASP-recommended cost (N=2^13, r=8, p=10: 8 MiB, one of the
 * documented equivalents of N=2^17, p=1; the same work as N=2^14, p=5 in half its memory, which keeps
 * the server within its 250 MB while two logins hash; ADR 0008). The parameters are stored with each
 * hash, so hashes made at another cost (N=2^15, p=3 and N=2^14, p=5 before) still verify, and the
 * cost can change again.
 */
export interface PasswordCost {
  N: number;
  r: number;
  p: number;
}
export const OWASP_SCRYPT: PasswordCost = { N: 2 ** 13, r: 8, p: 10 };
/** Only for test suites (RAPPORT_INSECURE_FAST_HASH=1): a cheap hash so hundreds of sign-ups stay fast. */
export const INSECURE_FAST_SCRYPT: PasswordCost = { N: 2 ** 10, r: 8, p: 1 };
const KEYLEN = 32;

/**
 * Hashes at once, at most: each needs 128·N·r bytes (8 MiB at the OWASP cost) and a whole core
 * for ~100 ms, so more than one per core only adds memory (libuv would run four: 32 MiB of the
 * 250 MB budget; ADR 0008) and latency, never throughput. Others wait in line.
 */
const HASH_SLOTS = 2;
let hashesRunning = 0;
const hashQueue: (() => void)[] = [];

async function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number): Promise<Buffer> {
  if (hashesRunning >= HASH_SLOTS) await new Promise<void>((resolve) => hashQueue.push(resolve));
  else hashesRunning++;
  try {
    return await new Promise((resolve, reject) => {
      scrypt(password, salt, keylen, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
    });
  } finally {
    // Hand the slot straight to the next in line, or free it.
    const next = hashQueue.shift();
    if (next) next();
    else hashesRunning--;
  }
}

export async function hashPassword(password: string, cost: PasswordCost = OWASP_SCRYPT): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, cost.N, cost.r, cost.p, KEYLEN);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  // Bounded so a corrupted row cannot make verification allocate without limit.
  if (Number(parts[1]) > 2 ** 20) return false;
  const [, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p), expected.length);
  return timingSafeEqual(actual, expected);
}

/** Whether a stored hash was made at this cost (a hash at another cost is made again at the next log-in). */
export function hashedAt(stored: string, cost: PasswordCost): boolean {
  const parts = stored.split('$');
  return parts[0] === 'scrypt' && Number(parts[1]) === cost.N && Number(parts[2]) === cost.r && Number(parts[3]) === cost.p;
}

/** A hash to verify against when the account does not exist, so timing does not reveal that. */
const dummyHashes = new Map<PasswordCost, Promise<string>>();
export function dummyPasswordHash(cost: PasswordCost): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (!hash) {
    hash = hashPassword(randomToken(16), cost);
    dummyHashes.set(cost, hash);
  }
  return hash;
}
