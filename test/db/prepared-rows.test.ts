// lanes: sqlite postgres main-thread-reads
/**
 * Prepared reads hand wide rows over as one JSON value each (SQLite: json_array of 8+ columns;
 * PostgreSQL: json_build_array after the first execution). The rows must read back exactly as the
 * plain statement gives them, whatever the values: nulls, big counters, sums, quotes and
 * non-ASCII text, and in the statement's order.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { preparedQuery } from '../../src/db/prepared.ts';
import type { AppContext } from '../../src/context.ts';
import { openContext } from '../../src/runtime.ts';
import { APP_ID_CHECK_ENV, type FreshDatabase, freshDatabase } from '../helpers/database.ts';

const wide = preparedQuery('testWideBehaviour', ({ db }, appId: string, customerId: string, limit: number) =>
  db
    .selectFrom('behaviour_logs')
    .selectAll()
    .where('app_id', '=', appId)
    .where('customer_id', '=', customerId)
    .orderBy('when_at', 'desc')
    .orderBy('id')
    .limit(limit),
);
const sums = preparedQuery('testSums', ({ db }, appId: string, customerId: string) =>
  db
    .selectFrom('behaviour_logs')
    .select(['action', sql<number>`sum(when_at)`.as('total'), sql<number>`count(*)`.as('n')])
    .where('app_id', '=', appId)
    .where('customer_id', '=', customerId)
    .groupBy('action')
    .orderBy('action'),
);

describe('prepared reads', () => {
  let fresh: FreshDatabase;
  let ctx: AppContext;

  beforeAll(async () => {
    fresh = await freshDatabase();
    ctx = await openContext(loadConfig({ ...fresh.env, ...APP_ID_CHECK_ENV, LOG_LEVEL: 'silent' }), createLogger('silent'));
    const texts = ['plain', 'quote " and \\ backslash', '中文 ✓ emoji 😀', '', '{"json":"as text"}'];
    await ctx.database.db
      .insertInto('behaviour_logs')
      .values(
        Array.from({ length: 12 }, (_, i) => ({
          id: `b${i}`,
          app_id: 'a',
          customer_id: 'c',
          action: i % 2 ? 'send_message' : 'access_site',
          when_at: 1_700_000_000_000 + (i % 4) * 1000,
          content: texts[i % texts.length] as string,
          description: i % 3 ? null : (texts[(i + 1) % texts.length] as string),
          remote_duration: i % 2 ? 2 ** 52 + i : null,
          user_type: i % 2,
          created_at: 4_102_444_800_000,
        })),
      )
      .execute();
  });

  afterAll(async () => {
    await ctx.database.close();
    await fresh.drop();
  });

  it('give the same rows, in the same order, on every execution', async () => {
    const expected = await ctx.database.db
      .selectFrom('behaviour_logs')
      .selectAll()
      .where('app_id', '=', 'a')
      .where('customer_id', '=', 'c')
      .orderBy('when_at', 'desc')
      .orderBy('id')
      .limit(10)
      .execute();
    expect(expected).toHaveLength(10);
    for (let run = 0; run < 3; run += 1) {
      expect(await ctx.database.reader.all(wide, 'a', 'c', 10)).toEqual(expected);
    }
    expect(await ctx.database.reader.first(wide, 'a', 'c', 1)).toEqual(expected[0]);
    expect(await ctx.database.reader.all(wide, 'a', 'nobody', 10)).toEqual([]);
  });

  it('read sums and counts back as numbers', async () => {
    for (let run = 0; run < 3; run += 1) {
      const rows = await ctx.database.reader.all(sums, 'a', 'c');
      expect(rows.map((r) => [r.action, Number(r.total), Number(r.n)])).toEqual([
        ['access_site', 6 * 1_700_000_000_000 + 3 * 2000, 6],
        ['send_message', 6 * 1_700_000_000_000 + 3 * 1000 + 3 * 3000, 6],
      ]);
      expect(typeof rows[0]?.n).toBe('number');
    }
  });
});
