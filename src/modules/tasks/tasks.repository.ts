/**
 * The tasks module's SQL of tasks (tasks.service.ts, due.service.ts, the team records' join): one
 * task by id, the list (joined to the customers the caller's customer list shows, through the
 * customers module's read model, in one statement), and the due scan's queue.
 */
import type { Insertable, Kysely, Updateable } from 'kysely';
import { type Database, type TasksTable, crossProject } from '../../db/index.ts';
import type { CustomerVisibilityReadModel } from '../customers/mapper.ts';
import type { ListedTaskRow, TaskRow } from './mapper.ts';

type Db = Kysely<Database>;

/** What the task list keeps: who may see it (`ownerId`: a Sales member's customers), and the filters. */
export interface TaskFilter {
  appId: string;
  /** The customers' owner for a Sales member (their own customers), null for Master and Admin. */
  ownerId: number | null;
  assigneeId?: number | undefined;
  customerId?: string | undefined;
  status?: 'open' | 'done' | undefined;
  /** Due from (inclusive) and before (exclusive), epoch ms. */
  dueFrom?: number | null | undefined;
  dueBefore?: number | undefined;
}

export function createTasksRepository(customers: CustomerVisibilityReadModel) {
  return {
    async insert(db: Db, row: Insertable<TasksTable>): Promise<void> {
      await db.insertInto('tasks').values(row).execute();
    },

    find(db: Db, appId: string, id: string): Promise<TaskRow | undefined> {
      return db.selectFrom('tasks').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
    },

    update(db: Db, appId: string, id: string, patch: Updateable<TasksTable>): Promise<TaskRow | undefined> {
      return db.updateTable('tasks').set(patch).where('app_id', '=', appId).where('id', '=', id).returningAll().executeTakeFirst();
    },

    async remove(db: Db, appId: string, id: string): Promise<boolean> {
      const r = await db.deleteFrom('tasks').where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    /** The project's tasks of these ids. */
    byIds(db: Db, appId: string, ids: string[]): Promise<TaskRow[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return db.selectFrom('tasks').selectAll().where('app_id', '=', appId).where('id', 'in', ids).execute();
    },

    /**
     * A page of the tasks of customers the caller's customer list shows, with the customer's name:
     * by due time (soonest first; `done` alone: latest first), ties by id.
     */
    page(db: Db, f: TaskFilter, offset: number, limit: number): Promise<ListedTaskRow[]> {
      let q = db
        .selectFrom('tasks as t')
        .innerJoin(customers.listed(db, f.appId, f.ownerId).as('c'), (j) =>
          j.onRef('c.id', '=', 't.customer_id').onRef('c.app_id', '=', 't.app_id'),
        )
        .selectAll('t')
        .select(['c.name as customer_name', 'c.owner_id as customer_owner_id'])
        .where('t.app_id', '=', f.appId);
      if (f.assigneeId !== undefined) q = q.where('t.assignee_id', '=', f.assigneeId);
      if (f.customerId !== undefined) q = q.where('t.customer_id', '=', f.customerId);
      if (f.status !== undefined) q = q.where('t.status', '=', f.status);
      if (f.dueFrom !== undefined && f.dueFrom !== null) q = q.where('t.due_at', '>=', f.dueFrom);
      if (f.dueBefore !== undefined) q = q.where('t.due_at', '<', f.dueBefore);
      const dir = f.status === 'done' ? 'desc' : 'asc';
      return q.orderBy('t.due_at', dir).orderBy('t.id', dir).offset(offset).limit(limit).execute();
    },

    /** Open tasks come due by `now` and not yet announced, soonest first: the due scan's queue, over every project. */
    dueQueue(db: Db, now: number, limit: number): Promise<Pick<TaskRow, 'app_id' | 'id'>[]> {
      return db
        .selectFrom('tasks')
        .select(['app_id', 'id'])
        .where('status', '=', 'open')
        .where('due_signalled_at', 'is', null)
        .where('due_at', '<=', now)
        .orderBy('due_at')
        .limit(limit)
        .modifyEnd(crossProject('task-due-scan'))
        .execute();
    },

    /**
     * Marks the project's tasks of these ids announced at `now`, those still open, due and not yet
     * announced (another server may have taken some meanwhile); returns the ones it marked.
     */
    claimDue(db: Db, appId: string, ids: string[], now: number): Promise<TaskRow[]> {
      return db
        .updateTable('tasks')
        .set({ due_signalled_at: now })
        .where('app_id', '=', appId)
        .where('id', 'in', ids)
        .where('status', '=', 'open')
        .where('due_signalled_at', 'is', null)
        .where('due_at', '<=', now)
        .returningAll()
        .execute();
    },
  };
}

export type TasksRepository = ReturnType<typeof createTasksRepository>;
