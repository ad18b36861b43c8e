// lanes: sqlite
/**
 * SQLite re-prepares a statement whose plan looked at a bound LIMIT value every time that value is
 * bound again (30–100 µs a page). The SQLite database writes LIMIT as `? + 0`, which keeps
 * the prepared plan; paging must answer exactly as before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, createDatabase } from '../../src/db/index.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

describe('SQLite LIMIT parameters', () => {
  let dir: string;
  let database: DatabaseHandle;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-limit-'));
    database = createDatabase({ dataDir: dir, databaseUrl: undefined });
    await migrateToLatest(database.db, database.features.name);
  });

  afterAll(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('are compiled behind an expression, offsets left as they are', () => {
    const q = database.db.selectFrom('users').select('id').orderBy('id').limit(5).offset(10).compile();
    expect(q.sql).toMatch(/ limit \? \+ 0 offset \?$/);
    expect(q.parameters).toEqual([5, 10]);
  });

  it('page exactly as a literal LIMIT would', async () => {
    const { sql } = await import('kysely');
    const values = Array.from({ length: 30 }, (_, i) => sql`select ${i} as n`);
    const numbers = sql<{ n: number }>`(${sql.join(values, sql` union all `)})`;
    const page = async (limit: number, offset: number) =>
      (await database.db.selectFrom(numbers.as('t')).select('t.n').orderBy('t.n').limit(limit).offset(offset).execute()).map((r) => r.n);
    expect(await page(5, 0)).toEqual([0, 1, 2, 3, 4]);
    expect(await page(3, 28)).toEqual([28, 29]);
    expect(await page(1, 30)).toEqual([]);
  });
});
