import type { Insertable, Kysely, Updateable } from 'kysely';
import { type CustomerBulkJobsTable, type Database, crossProject } from '../../db/index.ts';
import type { BulkRow } from './mapper.ts';

type Db = Kysely<Database>;

/** Bulk customer jobs (one table, this module's). */
export const bulkRepository = {
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

  /** Jobs waiting for a worker: queued, or running with a lease that ran out. The one statement over every project. */
  waiting(db: Db, now: number, limit: number): Promise<Pick<BulkRow, 'app_id' | 'id'>[]> {
    return db
      .selectFrom('customer_bulk_jobs')
      .select(['app_id', 'id'])
      .where('status', 'in', ['queued', 'running'])
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .modifyEnd(crossProject('customer-bulk-worker'))
      .execute();
  },

  /** Takes a waiting job for `until`; false when another process took it first. */
  async claim(db: Db, appId: string, id: string, now: number, until: number): Promise<boolean> {
    const result = await db
      .updateTable('customer_bulk_jobs')
      .set({ lease_until: until, status: 'running' })
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** A batch's progress and a new lease, only while the job is still held with `lease`: false when it is not. */
  async advance(db: Db, appId: string, id: string, lease: number | null, patch: Updateable<CustomerBulkJobsTable>): Promise<boolean> {
    let q = db
      .updateTable('customer_bulk_jobs')
      .set(patch)
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .where('status', '=', 'running');
    q = lease === null ? q.where('lease_until', 'is', null) : q.where('lease_until', '=', lease);
    const result = await q.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
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
