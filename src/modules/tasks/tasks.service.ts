import type { Static } from '@sinclair/typebox';
import type { Kysely, Updateable } from 'kysely';
import type { Database, TasksTable } from '../../db/index.ts';
import type { AppContext } from '../../context.ts';
import { type EventMessage, type EventType, RECORD_BODY, writeEvents } from '../../events/outbox.ts';
import { badRequest, failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { CustomerVisibilityReadModel, VisibleCustomer } from '../customers/service.ts';
import { type TasksDeps, characters, maySee, visibleCustomer } from './common.ts';
import { type DueFilter, dueRange, zoneClock } from './due-window.ts';
import { TASK_ACTION, TASK_KINDS, type TaskResponse, type TaskRow, toTask } from './mapper.ts';
import type { TaskBody, TaskEdit, TasksQuery } from './schemas.ts';
import { createTasksRepository } from './tasks.repository.ts';

const TITLE_MAX = 200;
const NOTES_MAX = 4000;
/** Due times Rapport takes: within this century. */
const DUE_MIN = Date.UTC(2000, 0, 1);
const DUE_MAX = Date.UTC(2100, 0, 1);

export type NewTask = Static<typeof TaskBody>;
export type TaskChange = Static<typeof TaskEdit>;
export type TaskListQuery = Static<typeof TasksQuery>;

/** The Task event of a change; the body is the task, with the customer's owner (who else sees it) as `svcUserId`. */
function taskEvent(type: EventType, task: TaskResponse, ownerId: number): EventMessage {
  return { event_type: type, domainType: 'Task', domainId: task.id, body: { ...task, svcUserId: String(ownerId) } };
}

/**
 * Tasks about customers (docs/tasks.md "Tasks"): any member makes them on the customers their
 * customer list shows, for themselves or another member who may see the customer; whoever sees a task
 * changes, completes or deletes it. Each change writes its Task event; a task's `member_task` record
 * puts it in the customer's timeline.
 */
export function createTaskService(ctx: AppContext, deps: TasksDeps & { readModel: CustomerVisibilityReadModel }) {
  const { clock } = ctx;
  const db = ctx.database.db;
  const repo = createTasksRepository(deps.readModel);

  function title(input: string | undefined): string {
    const t = input?.trim() ?? '';
    if (t === '') throw failure('title_required');
    if (characters(t) > TITLE_MAX) throw failure('title_invalid');
    return t;
  }

  function dueAt(input: string | undefined): number {
    if (input === undefined || input.trim() === '') throw failure('due_at_required');
    const at = clock.parse(input.trim());
    if (at === null || at < DUE_MIN || at >= DUE_MAX) throw failure('due_at_invalid');
    return at;
  }

  function notes(input: string | undefined): string | null {
    if (input === undefined || input.trim() === '') return null;
    if (characters(input) > NOTES_MAX) throw failure('notes_invalid');
    return input;
  }

  function kind(input: string | undefined, fallback: string): string {
    if (input === undefined || input === '') return fallback;
    const k = input.trim().toLowerCase();
    if (!(TASK_KINDS as readonly string[]).includes(k)) throw failure('task_kind_invalid');
    return k;
  }

  async function assignee(actor: Actor, id: number | undefined, customer: VisibleCustomer): Promise<number> {
    const who = id ?? actor.userId;
    if (!(await maySee(deps, actor.app.id, who, customer))) throw failure('assignee_id_invalid');
    return who;
  }

  /** The task if the actor's customer list shows its customer; task_not_found otherwise. */
  async function visibleTask(actor: Actor, taskId: string): Promise<{ task: TaskRow; customer: VisibleCustomer }> {
    const task = await repo.find(db, actor.app.id, taskId);
    const customer = task && (await deps.customers.visibleLive(actor, [task.customer_id])).get(task.customer_id);
    if (task === undefined || customer === undefined) throw failure('task_not_found');
    return { task, customer };
  }

  /** The columns a change sets, checked; `complete`: whether it marks the task done. */
  async function changeOf(actor: Actor, at: { current: TaskRow; customer: VisibleCustomer; now: number }, input: TaskChange) {
    const { current, customer, now } = at;
    const patch: Updateable<TasksTable> = { updated_at: now };
    if (input.title !== undefined) patch.title = title(input.title);
    if (input.notes !== undefined) patch.notes = notes(input.notes);
    if (input.kind !== undefined) patch.kind = kind(input.kind, current.kind);
    if (input.assignee_id !== undefined) patch.assignee_id = await assignee(actor, input.assignee_id, customer);
    if (input.due_at !== undefined) {
      patch.due_at = dueAt(input.due_at);
      // A new due time is announced again when it comes.
      if (patch.due_at !== Number(current.due_at)) patch.due_signalled_at = null;
    }
    let complete = false;
    if (input.status !== undefined && input.status !== '') {
      const status = input.status.trim().toLowerCase();
      if (status !== 'open' && status !== 'done') throw failure('task_status_invalid');
      if (status !== current.status) {
        patch.status = status;
        complete = status === 'done';
        patch.completed_at = complete ? now : null;
        patch.completed_by = complete ? actor.userId : null;
      }
    }
    return { patch, complete };
  }

  async function writeNew(trx: Kysely<Database>, row: TaskRow, customer: VisibleCustomer, now: number): Promise<void> {
    await repo.insert(trx, row);
    await deps.records.insert(trx, [
      {
        id: row.id,
        app_id: row.app_id,
        customer_id: row.customer_id,
        svc_user_id: String(customer.ownerId),
        action: TASK_ACTION,
        content: JSON.stringify({ task_id: row.id, creator_id: row.creator_id }),
        when_at: now,
        created_at: now,
        user_type: 1,
      },
    ]);
    const task = toTask({ ...row, customer_name: customer.name }, clock, now);
    await writeEvents(
      trx,
      row.app_id,
      [
        taskEvent('create', task, customer.ownerId),
        { event_type: 'create', domainType: 'BehaviourLog', domainId: row.id, body: RECORD_BODY },
      ],
      now,
    );
  }

  return {
    /** A new task on a customer the actor's list shows, assigned to the actor or another member who may see the customer. */
    async create(actor: Actor, input: NewTask): Promise<TaskResponse> {
      const customerId = input.customer_id?.trim() ?? '';
      if (customerId === '') throw badRequest("Missing required parameter 'customer_id'");
      const customer = await visibleCustomer(deps, actor, customerId);
      const now = clock.now();
      const row: TaskRow = {
        id: timeOrderedUuid(now),
        app_id: actor.app.id,
        customer_id: customer.id,
        title: title(input.title),
        notes: notes(input.notes),
        kind: kind(input.kind, 'todo'),
        due_at: dueAt(input.due_at),
        assignee_id: await assignee(actor, input.assignee_id, customer),
        creator_id: actor.userId,
        status: 'open',
        completed_at: null,
        completed_by: null,
        due_signalled_at: null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute((trx) => writeNew(trx, row, customer, now));
      return toTask({ ...row, customer_name: customer.name }, clock, now);
    },

    /**
     * A task another module makes in its own transaction: a sequence's call or task step for the
     * sending member (`assigneeId`), a playbook's task for the customer's owner (`assigneeId` null,
     * `creatorId` the playbook's author). The customer must be live in the project and the assignee an
     * active member who may see it; null when either is no longer so (nothing is written). The title
     * and notes are cut to their limits, the due time held to the accepted range.
     */
    async createInTransaction(
      trx: Kysely<Database>,
      input: {
        appId: string;
        customerId: string;
        /** null: the customer's owner. */
        assigneeId: number | null;
        /** Who made it (default: the assignee). */
        creatorId?: number;
        title: string;
        notes?: string | null;
        kind: string;
        dueAt: number;
        now?: number;
      },
    ): Promise<TaskResponse | null> {
      const customer = (await deps.customers.liveCustomers(input.appId, [input.customerId], trx)).get(input.customerId);
      if (customer === undefined) return null;
      const assigneeId = input.assigneeId ?? customer.ownerId;
      if (!(await maySee(deps, input.appId, assigneeId, customer))) return null;
      const now = input.now ?? clock.now();
      const notesText = input.notes ?? null;
      const row: TaskRow = {
        id: timeOrderedUuid(now),
        app_id: input.appId,
        customer_id: customer.id,
        title: Array.from(input.title.trim() || '-')
          .slice(0, TITLE_MAX)
          .join(''),
        notes: notesText === null || notesText.trim() === '' ? null : Array.from(notesText).slice(0, NOTES_MAX).join(''),
        kind: kind(input.kind, 'todo'),
        due_at: Math.min(Math.max(input.dueAt, DUE_MIN), DUE_MAX - 1),
        assignee_id: assigneeId,
        creator_id: input.creatorId ?? assigneeId,
        status: 'open',
        completed_at: null,
        completed_by: null,
        due_signalled_at: null,
        created_at: now,
        updated_at: now,
      };
      await writeNew(trx, row, customer, now);
      return toTask({ ...row, customer_name: customer.name }, clock, now);
    },

    /** A page of the tasks of the customers the actor's list shows, filtered. */
    async list(actor: Actor, input: { query: TaskListQuery; page: Page }): Promise<TaskResponse[]> {
      const { query: q, page } = input;
      const now = clock.now();
      const zone = q.time_zone === undefined || q.time_zone === '' ? clock : zoneClock(q.time_zone);
      if (zone === null) throw failure('time_zone_invalid');
      const range = q.due === undefined ? null : dueRange(q.due as DueFilter, zone, now);
      const rows = await repo.page(
        db,
        {
          appId: actor.app.id,
          ownerId: actor.isManager ? null : actor.userId,
          assigneeId: q.assignee_id,
          customerId: q.customer_id === undefined || q.customer_id === '' ? undefined : q.customer_id,
          // Overdue is about open tasks: a done task is never late.
          status: q.status ?? (q.due === 'overdue' ? 'open' : undefined),
          dueFrom: range?.from,
          dueBefore: range?.before,
        },
        page.offset,
        page.limit,
      );
      return rows.map((r) => toTask(r, clock, now));
    },

    /** Changes a task: title, notes, kind, due time (announced again when it comes), assignee, status (done or open). */
    async edit(actor: Actor, input: { taskId: string; change: TaskChange }): Promise<TaskResponse> {
      const { task, customer } = await visibleTask(actor, input.taskId);
      const now = clock.now();
      const { patch, complete } = await changeOf(actor, { current: task, customer, now }, input.change);
      const updated = await db.transaction().execute(async (trx) => {
        const row = await repo.update(trx, actor.app.id, task.id, patch);
        if (row === undefined) throw failure('task_not_found');
        const out = toTask({ ...row, customer_name: customer.name }, clock, now);
        await writeEvents(trx, actor.app.id, [taskEvent(complete ? 'complete' : 'update', out, customer.ownerId)], now);
        return out;
      });
      return updated;
    },

    /** Deletes a task with its timeline record. */
    async remove(actor: Actor, taskId: string): Promise<boolean> {
      const { task, customer } = await visibleTask(actor, taskId);
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, actor.app.id, task.id))) throw failure('task_not_found');
        await deps.records.removeTeamRecords(trx, actor.app.id, [task.id]);
        const body = { id: task.id, appId: task.app_id, customerId: task.customer_id, svcUserId: String(customer.ownerId) };
        await writeEvents(trx, actor.app.id, [{ event_type: 'delete', domainType: 'Task', domainId: task.id, body }], now);
      });
      return true;
    },
  };
}

export type TaskService = ReturnType<typeof createTaskService>;
