// lanes: sqlite postgres
/**
 * A database created by the previous release, with rows in it, upgrades to head: the real migrator
 * applies the migrations it lacks, the rows are still there, the schema is the one a fresh
 * database gets (test/fixtures/schema-<dialect>.json), and the server reads the old rows.
 *
 * The previous release is test/fixtures/release/<dialect>.sql, a dump of a database that release
 * created, filled with a few rows in every table. At each release, once its migrations are final,
 * refresh it from the release's tree with `npm run release:fixture` (both dialects; PostgreSQL at
 * RAPPORT_TEST_PG_URL, dumped with pg_dump) and commit the dumps; see docs/migrations.md. Between
 * releases it stays as it is: it is what the server will find on the databases it upgrades.
 *
 * Rows are compared column by column as the dump has them. A new migration that rewrites rows on
 * purpose states the rewrite in EXPECTED_REWRITES, which maps each dumped row to what it becomes.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/handle.ts';
import { createLogger } from '../../src/logger.ts';
import { openContext } from '../../src/runtime.ts';
import { createServices } from '../../src/services.ts';
import { APP_ID_CHECK_ENV, TEST_DIALECT } from '../helpers/database.ts';
import type { FreshDatabase } from '../helpers/database.ts';
import { RELEASE_FIXTURE, loadReleaseFixture } from '../helpers/release.ts';
import { introspectSchema, migrate, openDatabase, readSnapshot, schemaDifferences } from '../helpers/schema.ts';

type Row = Record<string, unknown>;

/** table → how a migration since the fixture's release rewrites each of its rows, given every row before. */
const EXPECTED_REWRITES: Record<string, (row: Row, before: Record<string, Row[]>) => Row> = {
  // 011 marks every existing membership accepted: on SQLite each updated member row advances the
  // `access` change epoch by one (migration 007's row triggers); 016 gives every project its site key
  // and secret, one updated apps row (and one step) each. 031 gives every customer its last activity:
  // one updated customers row (and one `customers` step) each.
  change_epoch: (row, before) =>
    row.topic === 'access'
      ? { ...row, n: Number(row.n) + (before.members?.length ?? 0) + (before.apps?.length ?? 0) }
      : row.topic === 'customers'
        ? { ...row, n: Number(row.n) + (before.customers?.length ?? 0) }
        : row,
};

/** table → the rows a migration since the fixture's release adds to a table that had rows, on purpose. */
const EXPECTED_ADDITIONS: Record<string, (row: Row) => boolean> = {
  // 035 adds the change topic `scoring` (the scoring rules' cache), with its SQLite counter.
  change_epoch: (row) => row.topic === 'scoring',
};

async function tableNames(handle: DatabaseHandle): Promise<string[]> {
  const q =
    TEST_DIALECT === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
      : sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'`;
  return (await q.execute(handle.db)).rows.map((r) => r.name).sort();
}

/** Every row of every table, each table's rows in a fixed order. */
async function allRows(handle: DatabaseHandle): Promise<Record<string, Row[]>> {
  const out: Record<string, Row[]> = {};
  for (const table of await tableNames(handle)) {
    const { rows } = await sql<Row>`select * from ${sql.table(table)}`.execute(handle.db);
    out[table] = sortRows(rows);
  }
  return out;
}

function sortRows(rows: Row[]): Row[] {
  return rows
    .map((r) => [JSON.stringify(r), r] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, r]) => r);
}

describe(`upgrading a ${TEST_DIALECT} database of the previous release`, () => {
  let fresh: FreshDatabase;
  let before: Record<string, Row[]>;
  let after: Record<string, Row[]>;
  let applied: string[];

  beforeAll(async () => {
    fresh = await loadReleaseFixture(TEST_DIALECT);
    const handle = openDatabase(fresh);
    try {
      before = await allRows(handle);
      applied = await migrate(handle);
      after = await allRows(handle);
    } finally {
      await handle.close();
    }
  });

  afterAll(async () => {
    await fresh?.drop();
  });

  it('applies the migrations the release lacked, after the ones it had', () => {
    const had = (before.rapport_migrations ?? []).map((r) => r.name);
    expect(had.length).toBeGreaterThan(0);
    expect(applied.every((name) => had.every((h) => String(h) < name))).toBe(true);
    expect((after.rapport_migrations ?? []).map((r) => r.name)).toEqual([...had, ...applied].sort());
  });

  it('counts memberships made before acceptance existed as accepted when they were made', () => {
    const members = after.members ?? [];
    expect(members.length).toBeGreaterThan(0);
    for (const m of members) expect(String(m.accepted_at)).toBe(String(m.create_time));
  });

  it("gives the rows that had their project only through a parent the parent's project", () => {
    const parents: [string, string, string][] = [
      ['behaviour_rollups', 'customer_id', 'customers'],
      ['behaviour_totals', 'customer_id', 'customers'],
      ['link_view_durations', 'link_view_log_id', 'link_view_logs'],
      ['webhook_deliveries', 'webhook_id', 'webhooks'],
    ];
    for (const [table, reference, parent] of parents) {
      const rows = after[table] ?? [];
      expect(rows.length, table).toBeGreaterThan(0);
      for (const row of rows) {
        const owner = (after[parent] ?? []).find((p) => p.id === row[reference]);
        expect(row.app_id, `${table} → ${parent}`).toBe(owner?.app_id);
      }
    }
  });

  it('keeps every row', () => {
    for (const [table, rows] of Object.entries(before)) {
      if (table.startsWith('rapport_migrations')) continue;
      const now = after[table];
      expect(now, `table ${table} is gone`).toBeDefined();
      const rewrite = EXPECTED_REWRITES[table] ?? ((r: Row) => r);
      const added = EXPECTED_ADDITIONS[table] ?? (() => false);
      const expected = rows.map((r) => rewrite(r, before));
      const kept = (now ?? []).filter((r) => !added(r) || rows.some((b) => JSON.stringify(b) === JSON.stringify(r)));
      // Columns a later migration dropped are left out, and columns it added are not compared.
      const had = new Set(Object.keys(expected[0] ?? {}));
      const has = new Set(Object.keys(now?.[0] ?? expected[0] ?? {}));
      const only = (columns: Set<string>) => (r: Row) => Object.fromEntries(Object.entries(r).filter(([c]) => columns.has(c)));
      expect(sortRows(kept.map(only(had))), `rows of ${table}`).toEqual(sortRows(expected.map(only(has))));
    }
  });

  it('ends with the schema of a freshly migrated database', async () => {
    const handle = openDatabase(fresh);
    try {
      const schema = await introspectSchema(handle.db, TEST_DIALECT);
      const expected = readSnapshot(TEST_DIALECT);
      expect(schema, `differences from the fresh schema: ${schemaDifferences(schema, expected).join('; ')}`).toEqual(expected);
    } finally {
      await handle.close();
    }
  });

  it("serves the release's rows", async () => {
    const config = loadConfig({ ...fresh.env, ...APP_ID_CHECK_ENV, RAPPORT_INSECURE_FAST_HASH: '1', LOG_LEVEL: 'silent' });
    const ctx = await openContext(config, createLogger('silent'));
    const app = await buildApp(ctx, createServices(ctx));
    try {
      const auth = { authorization: `Bearer ${RELEASE_FIXTURE.masterToken}` };
      const user = await app.inject({
        url: '/svcuser/oauth2/getUserInfoByAccessToken',
        query: { access_token: RELEASE_FIXTURE.masterToken },
      });
      expect(user.statusCode, user.body).toBe(200);
      expect(user.json()).toMatchObject({ id: 1, phoneNum: RELEASE_FIXTURE.masterPhone });
      const detail = await app.inject({ url: `/api/v1.7/customer/${RELEASE_FIXTURE.customerId}/detail`, headers: auth });
      expect(detail.statusCode, detail.body).toBe(200);
      expect(detail.json()).toMatchObject({ status: 1, data: { id: RELEASE_FIXTURE.customerId, name: RELEASE_FIXTURE.customerName } });
    } finally {
      await app.close();
      await ctx.database.close();
    }
  });
});
