import type { Insertable, Kysely, Updateable } from 'kysely';
import {
  type CustomerImportProblemsTable,
  type CustomerImportsTable,
  type Database,
  bulkOps,
  crossProject,
  type DialectFeatures,
} from '../../db/index.ts';
import type { ImportProblemRow, ImportRow } from './mapper.ts';

type Db = Kysely<Database>;

/** Customer import jobs and their failed rows. */
export function createImportsRepository(features: DialectFeatures) {
  const bulk = bulkOps(features);
  return {
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

    /**
     * Imports waiting for a worker: queued, or running with a lease that ran out (their process
     * stopped). The one statement over every project: a server's worker serves them all.
     */
    waiting(db: Db, now: number, limit: number): Promise<Pick<ImportRow, 'app_id' | 'id'>[]> {
      return db
        .selectFrom('customer_imports')
        .select(['app_id', 'id'])
        .where('status', 'in', ['queued', 'running'])
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .modifyEnd(crossProject('customer-import-worker'))
        .execute();
    },

    /**
     * A batch's counters and a new lease, only while the import is still held with `lease` (a
     * process whose lease ran out and was taken over must not write): false when it is not.
     */
    async advance(db: Db, appId: string, id: string, lease: number | null, patch: Updateable<CustomerImportsTable>): Promise<boolean> {
      let q = db
        .updateTable('customer_imports')
        .set(patch)
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('status', '=', 'running');
      q = lease === null ? q.where('lease_until', 'is', null) : q.where('lease_until', '=', lease);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Takes a waiting import for `until`; false when another process took it first. */
    async claim(db: Db, appId: string, id: string, now: number, until: number): Promise<boolean> {
      const result = await db
        .updateTable('customer_imports')
        .set({ lease_until: until, status: 'running' })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('status', 'in', ['queued', 'running'])
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
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
