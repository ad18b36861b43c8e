import type { Kysely, RawBuilder, Selectable } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Tables whose rows wait, in every project, for a server to act on them at a time of their own (an
 * alert's e-mail, a playbook's webhook call): a row is due while its status column holds the waiting
 * status and its next-at column has come. A server takes a due row by moving next-at to the end of
 * its lease, in a statement that matches only while status and next-at are still as it read them, so
 * of two servers that found the same row one takes it; a lease that runs out (its server stopped)
 * makes the row due again.
 */
export type TimedQueueTable = 'notifications' | 'playbook_runs';

/** The queue's columns in `T`: which holds the status (and the status of a waiting row), which the time it is due. */
export interface TimedQueueColumns<T extends TimedQueueTable> {
  status: keyof Database[T] & string;
  waiting: string;
  nextAt: keyof Database[T] & string;
}

type QueueDb = Kysely<Record<TimedQueueTable, Record<string, string | number | null>>>;

/**
 * The queue's statements over `table`: `crossProjectTag` is the due rows' `crossProject(key)`
 * (src/db/app-id-check.ts), written where the table's owner builds these.
 */
export function timedQueue<T extends TimedQueueTable>(table: T, columns: TimedQueueColumns<T>, crossProjectTag: RawBuilder<unknown>) {
  const over = (db: Kysely<Database>) => db as unknown as QueueDb;
  const name: TimedQueueTable = table;
  const status: string = columns.status;
  const nextAt: string = columns.nextAt;
  const { waiting } = columns;
  return {
    /** Rows due (waiting, their time come), every project's, soonest first: the caller takes each by `claim`. */
    due(db: Kysely<Database>, now: number, limit: number): Promise<Selectable<Database[T]>[]> {
      return over(db)
        .selectFrom(name)
        .selectAll()
        .where(status, '=', waiting)
        .where(nextAt, '<=', now)
        .orderBy(nextAt)
        .limit(limit)
        .modifyEnd(crossProjectTag)
        .execute() as Promise<Selectable<Database[T]>[]>;
    },

    /** Takes a due row until `until`, its next-at still `row.nextAt` as it was read; false when another server took it first. */
    async claim(db: Kysely<Database>, row: { appId: string; id: string; nextAt: number | null }, until: number): Promise<boolean> {
      const r = await over(db)
        .updateTable(name)
        .set({ [nextAt]: until })
        .where('app_id', '=', row.appId)
        .where('id', '=', row.id)
        .where(status, '=', waiting)
        .where(nextAt, '=', row.nextAt)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}
