/**
 * `npm run schema:snapshot [-- sqlite|postgres]`: migrates an empty database of each dialect (both
 * by default; PostgreSQL at RAPPORT_TEST_PG_URL) and writes its schema to test/fixtures/schema-<dialect>.json,
 * the snapshot test/db/schema-snapshot.test.ts compares with. Run it when a new migration changes the
 * schema on purpose, and commit the snapshots with the migration.
 */
import fs from 'node:fs';
import prettier from 'prettier';
import type { DialectName } from '../../src/db/dialect.ts';
import { formatSnapshot, introspectSchema, migratedDatabase, snapshotFile } from '../helpers/schema.ts';

const args = process.argv.slice(2);
const dialects: DialectName[] = args.length > 0 ? (args as DialectName[]) : ['sqlite', 'postgres'];
for (const dialect of dialects) {
  if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error(`unknown dialect ${String(dialect)}`);
  const database = await migratedDatabase(dialect);
  try {
    const snapshot = await introspectSchema(database.handle.db, dialect);
    const file = snapshotFile(dialect);
    const config = (await prettier.resolveConfig(file)) ?? {};
    fs.writeFileSync(file, await prettier.format(formatSnapshot(snapshot), { ...config, filepath: file }));
    process.stdout.write(`${file}: ${Object.keys(snapshot.tables).length} tables\n`);
  } finally {
    await database.close();
  }
}
