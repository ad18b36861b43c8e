/**
 * The rules of the notes, tasks and calls screens apart from React (docs/tasks.md): the task list's
 * filters as the URL keeps them and as the API takes them, who may be mentioned or given a task on a
 * customer, a member's name, and times as the API takes them. Pure.
 */
import type { Dayjs } from 'dayjs';

export const DUES = ['today', 'overdue', 'week', 'all'] as const;
export type Due = (typeof DUES)[number];
export const STATUSES = ['open', 'done', 'all'] as const;
export type Status = (typeof STATUSES)[number];
export const KINDS = ['call', 'email', 'todo'] as const;
export type TaskKind = (typeof KINDS)[number];

/** The task list's filters. `assignee`: 'me', 'all' (everyone's the caller's list shows), or a member's user id. */
export interface TaskFilter {
  due: Due;
  status: Status;
  assignee: string;
  page: number;
}

/** What the list shows with nothing in the URL: the caller's own open tasks, whenever due. */
export const DEFAULT_FILTER: TaskFilter = { due: 'all', status: 'open', assignee: 'me', page: 1 };

const pick = <T extends string>(values: readonly T[], raw: string | null, fallback: T): T =>
  raw !== null && (values as readonly string[]).includes(raw) ? (raw as T) : fallback;

/**
 * The filters a URL's query names (unknown values are the defaults). A member who may not watch
 * others' tasks (a Sales member) sees their own whatever the URL says.
 */
export function readFilter(search: URLSearchParams, mayWatchOthers: boolean): TaskFilter {
  const raw = search.get('assignee');
  const assignee = mayWatchOthers && raw !== null && (raw === 'all' || /^\d{1,10}$/.test(raw)) ? raw : 'me';
  return {
    due: pick(DUES, search.get('due'), DEFAULT_FILTER.due),
    status: pick(STATUSES, search.get('status'), DEFAULT_FILTER.status),
    assignee,
    page: Math.max(1, Math.floor(Number(search.get('page'))) || 1),
  };
}

/** The URL's query for filters: the defaults left out. */
export function writeFilter(filter: TaskFilter): URLSearchParams {
  const out = new URLSearchParams();
  if (filter.due !== DEFAULT_FILTER.due) out.set('due', filter.due);
  if (filter.status !== DEFAULT_FILTER.status) out.set('status', filter.status);
  if (filter.assignee !== DEFAULT_FILTER.assignee) out.set('assignee', filter.assignee);
  if (filter.page > 1) out.set('page', String(filter.page));
  return out;
}

/** The query of `GET …/tasks` (docs/tasks.md "The list"). */
export interface TaskQuery {
  assignee_id?: number;
  customer_id?: string;
  status?: 'open' | 'done';
  due?: 'today' | 'overdue' | 'week';
  time_zone?: string;
}

/**
 * The API's query for filters: `me` is the caller's id; `due` is read in the browser's zone (the
 * server's when the browser names none); overdue tasks are open ones (the server implies it), so the
 * status is not sent with it.
 */
export function taskQuery(filter: TaskFilter, myId: number, timeZone: string | undefined): TaskQuery {
  const query: TaskQuery = {};
  if (filter.assignee === 'me') query.assignee_id = myId;
  else if (filter.assignee !== 'all') query.assignee_id = Number(filter.assignee);
  if (filter.due !== 'all') {
    query.due = filter.due;
    if (timeZone) query.time_zone = timeZone;
  }
  if (filter.status !== 'all' && filter.due !== 'overdue') query.status = filter.status;
  return query;
}

/** The browser's IANA time zone, which `due` is read in; undefined when the browser does not say. */
export function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

export function isKind(kind: string): kind is TaskKind {
  return (KINDS as readonly string[]).includes(kind);
}

/** A project member as the members list answers it (the fields read here). */
export interface MemberLike {
  svcUserId: number;
  role: string;
  status: number;
  user: { userName: string | null; phoneNum: string | null; email: string | null } | null;
}

export interface Person {
  id: number;
  name: string;
}

/** What a member is called on screen: their name, else their phone number or e-mail, else their id. */
export function memberName(member: MemberLike): string {
  const u = member.user;
  return u?.userName?.trim() || u?.phoneNum || u?.email || `#${member.svcUserId}`;
}

/** Whether a role sees the whole project's customers (and so everyone's tasks). */
export function seesEveryone(role: string | undefined): boolean {
  return role === 'Master' || role === 'Admin';
}

/**
 * The members who may see a customer (docs/tasks.md): active ones who are the Master, an Admin or
 * its owner. Only they can be mentioned in its notes or given its tasks; the caller first, then by name.
 */
export function peopleWhoMaySee(members: readonly MemberLike[], ownerId: number | undefined, myId: number | undefined): Person[] {
  return members
    .filter((m) => m.status === 0 && (seesEveryone(m.role) || m.svcUserId === ownerId))
    .map((m) => ({ id: m.svcUserId, name: memberName(m) }))
    .sort((a, b) => (a.id === myId ? -1 : b.id === myId ? 1 : a.name.localeCompare(b.name)));
}

/**
 * When a new task is due unless the user says otherwise: the next full hour, if that is still
 * today, else the last minute of today (a task made late in the evening is still today's).
 */
export function defaultDue(now: Dayjs): Dayjs {
  const next = now.add(1, 'hour').startOf('hour');
  return next.isSame(now, 'day') ? next : now.endOf('day').startOf('minute');
}

/** The form of a call logged: minutes and seconds as typed, to the API's seconds. */
export function callSeconds(minutes: number | null | undefined, seconds: number | null | undefined): number {
  const total = Math.round((minutes ?? 0) * 60 + (seconds ?? 0));
  return Math.min(86_400, Math.max(0, Number.isFinite(total) ? total : 0));
}

/** The form field a failure of the task form belongs to, by its code; undefined: the form's own alert. */
export function taskFieldOf(code: string | undefined): 'title' | 'dueAt' | 'assignee' | 'kind' | 'notes' | undefined {
  if (code === undefined) return undefined;
  if (code.startsWith('title_')) return 'title';
  if (code.startsWith('due_at_')) return 'dueAt';
  if (code.startsWith('assignee_id_')) return 'assignee';
  if (code.startsWith('task_kind_')) return 'kind';
  if (code.startsWith('notes_')) return 'notes';
  return undefined;
}

/** The form field a failure of the call form belongs to, by its code. */
export function callFieldOf(code: string | undefined): 'callTime' | 'direction' | 'note' | undefined {
  if (code === 'call_time_invalid') return 'callTime';
  if (code === 'direction_invalid') return 'direction';
  if (code === 'content_invalid' || code === 'content_required') return 'note';
  return undefined;
}
