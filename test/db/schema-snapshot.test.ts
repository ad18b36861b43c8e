// lanes: sqlite postgres
/**
 * An empty database migrated to head has exactly the checked-in schema (test/fixtures/schema-<dialect>.json).
 * Released migrations never change, so neither does what they build: a difference means a
 * migration was edited, or something a migration depends on changed under it. Only a new
 * migration may change the schema, and then the snapshot is regenerated with it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_TOPICS } from '../../src/db/change-epoch.ts';
import { CHANGE_CHANNEL } from '../../src/db/postgres.ts';
import { TEST_DIALECT } from '../helpers/database.ts';
import {
  type MigratedDatabase,
  type SchemaSnapshot,
  introspectSchema,
  migratedDatabase,
  readSnapshot,
  schemaDifferences,
} from '../helpers/schema.ts';

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

  it('leave change triggers on exactly the tables of each change topic in src/db/change-epoch.ts', () => {
    // Migration 007 wrote the topics out as released: a topic or table added since needs a migration of its own.
    const topicOf = /where topic = '(\w+)'|rapport_notify_change\('(\w+)'\)/;
    const triggered = new Set(
      Object.values(schema.triggers).flatMap((t) => {
        const m = topicOf.exec(t.definition);
        return m ? [`${m[1] ?? m[2]}: ${t.table}`] : [];
      }),
    );
    const live = Object.entries(CHANGE_TOPICS).flatMap(([topic, tables]) => tables.map((t) => `${topic}: ${t}`));
    expect([...triggered].sort()).toEqual(live.sort());
  });

  it.runIf(TEST_DIALECT === 'postgres')('notify on the channel the server listens on', () => {
    expect(schema.functions?.rapport_notify_change).toContain(`pg_notify('${CHANGE_CHANNEL}'`);
  });
});

describe('migration files', () => {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/migrations');

  it('import nothing at run time but kysely (what they do must not change with the code around them)', () => {
    const imports = fs
      .readdirSync(dir)
      .flatMap((file) =>
        [...fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)]
          .filter((m) => m[1] === undefined && m[2] !== 'kysely')
          .map((m) => `${file}: ${m[2]}`),
      );
    expect(imports).toEqual([]);
  });
});
