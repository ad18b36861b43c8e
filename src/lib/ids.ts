import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let poolAt = pool.length;
let lastMs = 0;
let counter = 0;

/**
 * A time-ordered UUID (RFC 9562 version 7, with a 12-bit counter so ids of one process increase
 * strictly). Ids made together are adjacent in a primary-key index (a random UUID lands on a random
 * page of it), and ids of one process sort in the order they were made, which breaks ties of equal
 * creation times in creation order (event ids, customer groups).
 */
export function timeOrderedUuid(now = Date.now()): string {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const b = pool.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  if (now > lastMs) {
    lastMs = now;
    counter = ((b[6] as number) & 0x07) << 8; // a random start in the lower half, leaving room to count
  } else {
    counter += 1;
    if (counter > 0xfff) {
      // More than the counter holds in one millisecond: borrow the next one.
      lastMs += 1;
      counter = 0;
    }
  }
  const ms = lastMs;
  b[0] = Math.floor(ms / 2 ** 40) & 0xff;
  b[1] = Math.floor(ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | (counter >>> 8);
  b[7] = counter & 0xff;
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
