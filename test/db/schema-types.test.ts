// lanes: sqlite postgres
/**
 * The hand-written table types the code compiles against (src/db/schema.ts) agree with the
 * database the migrations build: kysely-codegen generates the types of a freshly migrated
 * database, and both are compared table by table and column by column (type, nullability, and
 * that a column schema.ts marks Generated<> really has a default or is auto-incremented).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresDialect, SqliteDialect, generate } from 'kysely-codegen';
import type { DatabaseMetadata } from 'kysely-codegen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from '../helpers/database.ts';
import { MIGRATOR_TABLES, type MigratedDatabase, type SchemaSnapshot, introspectSchema, migratedDatabase } from '../helpers/schema.ts';
import { type ColumnShape, type TableShapes, tableShapes } from '../helpers/table-types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Tables in the database that schema.ts leaves out on purpose. */
const NOT_IN_SCHEMA_TS = [
  ...MIGRATOR_TABLES,
  // SQLite's per-topic change counters: written by triggers and read with plain SQL by src/db/sqlite.ts only.
  'change_epoch',
];

/**
 * SQLite's type affinity of a declared column type (sqlite.org/datatype3.html, 3.1): what a value
 * read back is. kysely-codegen maps only exact type names, and would read `bigint` as a string.
 */
function sqliteAffinity(declared: string): string {
  const t = declared.toLowerCase();
  if (t.includes('int')) return 'integer';
  if (t.includes('char') || t.includes('clob') || t.includes('text')) return 'text';
  if (t === '' || t.includes('blob')) return 'blob';
  if (t.includes('real') || t.includes('floa') || t.includes('doub')) return 'real';
  return 'numeric';
}

async function generatedShapes(database: MigratedDatabase, schema: SchemaSnapshot): Promise<TableShapes> {
  const source = await generate({
    // kysely-codegen is CommonJS: its Kysely type is the CJS build's, a distinct class to TypeScript.
    db: database.handle.db as unknown as Parameters<typeof generate>[0]['db'],
    dialect: TEST_DIALECT === 'sqlite' ? new SqliteDialect() : new PostgresDialect(),
    outFile: null,
    // The server parses BIGINT as a JS number on PostgreSQL (src/db/postgres.ts), not codegen's default string.
    typeMapping: { int8: 'number' },
    postprocess: async ({ metadata }: { metadata: DatabaseMetadata }) => {
      for (const table of metadata.tables) {
        for (const column of table.columns) {
          if (TEST_DIALECT !== 'sqlite') continue;
          column.dataType = sqliteAffinity(column.dataType);
          // SQLite lets a primary-key column other than INTEGER PRIMARY KEY hold NULL unless it is
          // declared NOT NULL (a quirk it keeps for compatibility); no code stores one, and the same
          // column is NOT NULL on PostgreSQL.
          if (schema.tables[table.name]?.primaryKey.includes(column.name)) column.isNullable = false;
        }
      }
      return metadata;
    },
  });
  return tableShapes(source, 'DB');
}

function describeShape(c: ColumnShape): string {
  return `${c.generated ? 'Generated<' : ''}${[...c.type, ...(c.nullable ? ['null'] : [])].join(' | ')}${c.generated ? '>' : ''}`;
}

describe(`src/db/schema.ts against the migrated ${TEST_DIALECT} schema`, () => {
  let database: MigratedDatabase;
  let migrated: TableShapes;
  let declared: TableShapes;

  beforeAll(async () => {
    database = await migratedDatabase(TEST_DIALECT);
    migrated = await generatedShapes(database, await introspectSchema(database.handle.db, TEST_DIALECT));
    declared = tableShapes(fs.readFileSync(path.join(root, 'src/db/schema.ts'), 'utf8'), 'Database');
  });

  afterAll(async () => {
    await database?.close();
  });

  it('has the same tables', () => {
    const inDatabase = Object.keys(migrated).filter((t) => !NOT_IN_SCHEMA_TS.includes(t));
    expect(Object.keys(declared).sort()).toEqual(inDatabase.sort());
  });

  it('has the same columns with compatible types and nullability', () => {
    const problems: string[] = [];
    for (const [table, columns] of Object.entries(declared)) {
      const actual = migrated[table];
      if (!actual) continue; // reported by the table test
      for (const name of new Set([...Object.keys(columns), ...Object.keys(actual)])) {
        const d = columns[name];
        const m = actual[name];
        const where = `${table}.${name}`;
        if (!d) problems.push(`${where}: in the database (${describeShape(m as ColumnShape)}), not in schema.ts`);
        else if (!m) problems.push(`${where}: in schema.ts (${describeShape(d)}), not in the database`);
        else {
          if (d.type.join() !== m.type.join() || d.nullable !== m.nullable)
            problems.push(`${where}: schema.ts says ${describeShape(d)}, the database ${describeShape(m)}`);
          // The reverse (a default schema.ts does not mark Generated) only makes inserts name the column.
          if (d.generated && !m.generated) problems.push(`${where}: Generated<> in schema.ts, but no default in the database`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
