import type { Selectable } from 'kysely';
import type { NotesTable, TasksTable } from '../../db/index.ts';
import type { Clock } from '../../lib/time.ts';

export type NoteRow = Selectable<NotesTable>;
export type TaskRow = Selectable<TasksTable>;

/** What a task is about (optional; `todo` when not said). */
export const TASK_KINDS = ['call', 'email', 'todo'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

export const TASK_STATUSES = ['open', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The behaviour records Rapport writes for the team's notes and tasks (docs/actions.md): the customer's timeline. */
export const NOTE_ACTION = 'member_note';
export const TASK_ACTION = 'member_task';

/** A task row with the customer it is about, as the task list reads it. */
export type ListedTaskRow = TaskRow & { customer_name: string | null; customer_owner_id: number };

/** The user ids a note's `mentions` column holds (a JSON array written by this module). */
export function mentionsOf(row: Pick<NoteRow, 'mentions'>): number[] {
  try {
    const parsed = JSON.parse(row.mentions) as unknown;
    return Array.isArray(parsed) ? parsed.filter((v): v is number => Number.isSafeInteger(v)) : [];
  } catch {
    return [];
  }
}

/** A note as the API answers it. */
export function toNote(row: NoteRow, clock: Clock) {
  return {
    id: row.id,
    appId: row.app_id,
    customerId: row.customer_id,
    authorId: Number(row.author_id),
    content: row.content,
    mentions: mentionsOf(row),
    callId: row.call_id,
    createdAt: clock.format(row.created_at),
    updatedAt: clock.format(row.updated_at),
  };
}

export type NoteResponse = ReturnType<typeof toNote>;

/** A task as the API answers it; `overdue` at `now`: open and past its due time. */
export function toTask(row: TaskRow & { customer_name?: string | null }, clock: Clock, now: number) {
  return {
    id: row.id,
    appId: row.app_id,
    customerId: row.customer_id,
    customerName: row.customer_name ?? null,
    title: row.title,
    notes: row.notes,
    kind: row.kind,
    dueAt: clock.format(row.due_at),
    assigneeId: Number(row.assignee_id),
    creatorId: Number(row.creator_id),
    status: row.status,
    overdue: row.status === 'open' && Number(row.due_at) < now,
    completedAt: clock.format(row.completed_at),
    completedBy: row.completed_by === null ? null : Number(row.completed_by),
    createdAt: clock.format(row.created_at),
    updatedAt: clock.format(row.updated_at),
  };
}

export type TaskResponse = ReturnType<typeof toTask>;
