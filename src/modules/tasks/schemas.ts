import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { Nullable } from '../../http/schema-types.ts';

const S = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));
const Id = Type.String({ maxLength: 64 });
const UserId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

export const CustomerNotesParams = Type.Object({ appId: Id, customerId: Id });
export const NoteParams = Type.Object({ appId: Id, customerId: Id, noteId: Id });
export const TaskParams = Type.Object({ appId: Id, taskId: Id });

/** A note's text (docs/tasks.md "Notes"); the schema's bound is the body's, the service's is 10,000 characters. */
export const NoteBody = Type.Object({
  content: S(100_000, 'Markdown, 1–10,000 characters; @[label](member:<platform user id>) mentions a member'),
});

export const NotesQuery = Type.Object({ ...PagingQuery });

/** A note as the API answers it. */
export const Note = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  customerId: Type.String(),
  authorId: Type.Integer({ description: 'the platform user who wrote it' }),
  content: Type.String({ description: 'Markdown, as written' }),
  mentions: Type.Array(Type.Integer(), { description: 'platform user ids its @-mentions resolved to (members who may see the customer)' }),
  callId: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** A new task (docs/tasks.md "Tasks"). */
export const TaskBody = Type.Object({
  customer_id: S(64, 'the customer (required): one the caller may see'),
  title: S(10_000, '1–200 characters (required)'),
  due_at: S(64, 'yyyy-MM-dd HH:mm:ss (server zone) or ISO 8601 with an offset (required)'),
  assignee_id: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'an active member who may see the customer; default the caller' }),
  ),
  notes: S(100_000, 'up to 4,000 characters'),
  kind: S(16, 'call, email or todo (default todo)'),
});

/** A task's change: the fields given change (docs/tasks.md "Tasks"). */
export const TaskEdit = Type.Object({
  title: TaskBody.properties.title,
  due_at: TaskBody.properties.due_at,
  assignee_id: TaskBody.properties.assignee_id,
  notes: S(100_000, 'up to 4,000 characters; empty clears them'),
  kind: TaskBody.properties.kind,
  status: S(8, 'done marks it done, open reopens it'),
});

export const TasksQuery = Type.Object({
  ...PagingQuery,
  assignee_id: Type.Optional(UserId),
  customer_id: S(64, "one customer's tasks"),
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('done')], { description: 'open or done (default both)' })),
  due: Type.Optional(
    Type.Union([Type.Literal('today'), Type.Literal('overdue'), Type.Literal('week')], {
      description: 'today, overdue (open and past due) or week (today and the next six days), in time_zone',
    }),
  ),
  time_zone: S(64, "an IANA time zone for `due` (the browser's); default the server's TIME_ZONE"),
});

/** A task as the API answers it. */
export const Task = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  customerId: Type.String(),
  customerName: Nullable(Type.String()),
  title: Type.String(),
  notes: Nullable(Type.String()),
  kind: Type.String({ description: 'call, email or todo' }),
  dueAt: Type.String(),
  assigneeId: Type.Integer(),
  creatorId: Type.Integer(),
  status: Type.String({ description: 'open or done' }),
  overdue: Type.Boolean({ description: 'open and past its due time' }),
  completedAt: Nullable(Type.String()),
  completedBy: Nullable(Type.Integer()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** A call a member logs with a customer (docs/tasks.md "Logging a call"). */
export const CallBody = Type.Object({
  call_time: S(64, 'when it started: yyyy-MM-dd HH:mm:ss (server zone) or ISO 8601 with an offset; default now'),
  duration: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400, description: 'seconds (default 0)' })),
  call_status: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: '1 connected (default), 0 not connected' })),
  direction: S(8, 'out (default: the member called the customer) or in'),
  note: S(100_000, 'a note written with the call (Markdown, as a note’s content)'),
});

/** What a logged call wrote. */
export const LoggedCall = Type.Object({
  id: Type.String({ description: 'the Call record (GET /api/v1.7/calls)' }),
  recordId: Type.String({ description: 'its `call` behaviour record (the timeline)' }),
  callTime: Type.String(),
  endTime: Type.String(),
  duration: Type.Integer(),
  callStatus: Type.Integer(),
  note: Nullable(Note),
});
