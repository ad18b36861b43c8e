import type { Insertable, Kysely, Updateable } from 'kysely';
import { type CustomerBulkJobsTable, type Database, crossProject, leasedJobs } from '../../db/index.ts';
import type { BulkRow } from './mapper.ts';

type Db = Kysely<Database>;

/** Bulk customer jobs (one table, this module's). */
const lease = leasedJobs('customer_bulk_jobs', crossProject('customer-bulk-worker'));

export const bulkRepository = {
  waiting: lease.waiting,
  claim: lease.claim,
  advance: lease.advance,

  async insert(db: Db, row: Insertable<CustomerBulkJobsTable>): Promise<void> {
    await db.insertInto('customer_bulk_jobs').values(row).execute();
  },

  find(db: Db, appId: string, id: string): Promise<BulkRow | undefined> {
    return db.selectFrom('customer_bulk_jobs').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
  },

  /** The project's jobs queued or running (the limit of jobs under way). */
  async activeCount(db: Db, appId: string): Promise<number> {
    const row = await db
      .selectFrom('customer_bulk_jobs')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('app_id', '=', appId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** A member's jobs (or everyone's: `createdBy` null), newest first, without their customer lists. */
  recent(db: Db, appId: string, createdBy: number | null, limit: number): Promise<BulkRow[]> {
    let q = db.selectFrom('customer_bulk_jobs').selectAll().where('app_id', '=', appId);
    if (createdBy !== null) q = q.where('created_by', '=', createdBy);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  },

  /** Finished exports whose file was written before `before` (their files are removed). The one statement over every project. */
  expiredFiles(db: Db, before: number, limit: number): Promise<Pick<BulkRow, 'app_id' | 'id' | 'result_path'>[]> {
    return db
      .selectFrom('customer_bulk_jobs')
      .select(['app_id', 'id', 'result_path'])
      .where('result_path', 'is not', null)
      .where('updated_at', '<', before)
      .limit(limit)
      .modifyEnd(crossProject('customer-bulk-files'))
      .execute();
  },

  async update(db: Db, appId: string, id: string, patch: Updateable<CustomerBulkJobsTable>): Promise<void> {
    await db.updateTable('customer_bulk_jobs').set(patch).where('app_id', '=', appId).where('id', '=', id).execute();
  },
};
