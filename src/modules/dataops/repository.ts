import type { Insertable, Kysely, Updateable } from 'kysely';
import {
  type CustomerImportProblemsTable,
  type CustomerImportsTable,
  type Database,
  bulkOps,
  crossProject,
  leasedJobs,
  type DialectFeatures,
} from '../../db/index.ts';
import type { ImportProblemRow, ImportRow } from './mapper.ts';

type Db = Kysely<Database>;

/** Customer import jobs and their failed rows. */
export function createImportsRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  const lease = leasedJobs('customer_imports', crossProject('customer-import-worker'));
  return {
    waiting: lease.waiting,
    claim: lease.claim,
    advance: lease.advance,

    async insert(db: Db, row: Insertable<CustomerImportsTable>): Promise<void> {
      await db.insertInto('customer_imports').values(row).execute();
    },

    find(db: Db, appId: string, id: string): Promise<ImportRow | undefined> {
      return db.selectFrom('customer_imports').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
    },

    /** The imports a member started, newest first. */
    recent(db: Db, appId: string, createdBy: number, limit: number): Promise<ImportRow[]> {
      return db
        .selectFrom('customer_imports')
        .selectAll()
        .where('app_id', '=', appId)
        .where('created_by', '=', createdBy)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    async update(db: Db, appId: string, id: string, patch: Updateable<CustomerImportsTable>): Promise<void> {
      await db.updateTable('customer_imports').set(patch).where('app_id', '=', appId).where('id', '=', id).execute();
    },

    async insertProblems(db: Db, rows: ImportProblemRow[]): Promise<void> {
      if (rows.length > 0) await bulk.insert(db, 'customer_import_problems', rows as Insertable<CustomerImportProblemsTable>[]);
    },

    /** An import's failed rows in file order, a page at a time after `afterRow`. */
    problems(db: Db, appId: string, importId: string, afterRow: number, limit: number): Promise<ImportProblemRow[]> {
      return db
        .selectFrom('customer_import_problems')
        .selectAll()
        .where('app_id', '=', appId)
        .where('import_id', '=', importId)
        .where('row_number', '>', afterRow)
        .orderBy('row_number')
        .limit(limit)
        .execute();
    },
  };
}
