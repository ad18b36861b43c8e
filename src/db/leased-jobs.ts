import type { Kysely, RawBuilder, Updateable } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Tables of resumable jobs that any server's worker takes with a lease (docs/data-operations.md):
 * `queued`, then `running` while a process holds `lease_until`; a lease that runs out (its process
 * stopped) lets another take the job over, and a process that lost its lease writes nothing more.
 */
export type LeasedJobTable = 'customer_imports' | 'customer_bulk_jobs';

/** The columns the lease works on, common to every leased job table. */
interface LeasedJobColumns {
  app_id: string;
  id: string;
  status: string;
  lease_until: number | null;
  created_at: number;
}
type LeasedDb = Kysely<Record<LeasedJobTable, LeasedJobColumns>>;

/**
 * The lease's statements over `table`, whose worker looks for work in every project: `crossProjectTag`
 * is its `crossProject(key)` (src/db/app-id-check.ts), written where the table's owner builds these.
 */
export function leasedJobs<T extends LeasedJobTable>(table: T, crossProjectTag: RawBuilder<unknown>) {
  const over = (db: Kysely<Database>) => db as unknown as LeasedDb;
  const name: LeasedJobTable = table;
  return {
    /** Jobs waiting for a worker, oldest first: queued, or running with a lease that ran out. The one statement over every project. */
    waiting(db: Kysely<Database>, now: number, limit: number): Promise<{ app_id: string; id: string }[]> {
      return over(db)
        .selectFrom(name)
        .select(['app_id', 'id'])
        .where('status', 'in', ['queued', 'running'])
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .modifyEnd(crossProjectTag)
        .execute();
    },

    /** Takes a waiting job until `until`; false when another process took it first. */
    async claim(db: Kysely<Database>, appId: string, id: string, now: number, until: number): Promise<boolean> {
      const result = await over(db)
        .updateTable(name)
        .set({ lease_until: until, status: 'running' })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('status', 'in', ['queued', 'running'])
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * A batch's progress and a new lease, only while the job is still held with `lease` (a process
     * whose lease ran out and was taken over must not write): false when it is not.
     */
    async advance(db: Kysely<Database>, appId: string, id: string, lease: number | null, patch: Updateable<Database[T]>): Promise<boolean> {
      let q = over(db)
        .updateTable(name)
        .set(patch as Updateable<LeasedJobColumns>)
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('status', '=', 'running');
      q = lease === null ? q.where('lease_until', 'is', null) : q.where('lease_until', '=', lease);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
