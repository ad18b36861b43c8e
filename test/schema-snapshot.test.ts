/**
 * An empty database migrated to head has exactly the checked-in schema (test/fixtures/schema-<dialect>.json).
 * Released migrations never change, so neither does what they build: a difference means a
 * migration was edited, or something a migration depends on changed under it. Only a new
 * migration may change the schema, and then the snapshot is regenerated with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from './helpers/database.ts';
import {
  type MigratedDatabase,
  type SchemaSnapshot,
  introspectSchema,
  migratedDatabase,
  readSnapshot,
  schemaDifferences,
} from './helpers/schema.ts';

const SNAPSHOT_HINT =
  'the migrated schema differs from test/fixtures/schema-' +
  TEST_DIALECT +
  '.json. If a NEW migration intends this change, run `npm run schema:snapshot` and commit the snapshots with it; ' +
  'a released migration must never change (docs/migrations.md)';

describe(`migrations on an empty ${TEST_DIALECT} database`, () => {
  let database: MigratedDatabase;
  let schema: SchemaSnapshot;

  beforeAll(async () => {
    database = await migratedDatabase(TEST_DIALECT);
    schema = await introspectSchema(database.handle.db, TEST_DIALECT);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('build the checked-in schema snapshot', () => {
    const expected = readSnapshot(TEST_DIALECT);
    expect(schema, `${SNAPSHOT_HINT}. Differences: ${schemaDifferences(schema, expected).join('; ')}`).toEqual(expected);
  });

  it('apply every migration once, in name order', async () => {
    const recorded = await database.handle.db
      .selectFrom('rapport_migrations' as never)
      .select('name' as never)
      .orderBy('name' as never)
      .execute();
    expect(recorded.map((r) => (r as { name: string }).name)).toEqual(database.applied);
    expect([...database.applied].sort()).toEqual(database.applied);
  });
});
