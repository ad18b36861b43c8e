import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { AppIdParams } from '../projects/schemas.ts';
import {
  CallBody,
  CustomerNotesParams,
  LoggedCall,
  Note,
  NoteBody,
  NoteParams,
  NotesQuery,
  Task,
  TaskBody,
  TaskEdit,
  TaskParams,
  TasksQuery,
} from './schemas.ts';
import type { TasksServices } from './service.ts';

const noteTags = ['Notes'];
const taskTags = ['Tasks'];

/** Notes on a customer, and calls logged with one (docs/tasks.md "Notes", "Logging a call"). */
async function noteRoutes(fastify: FastifyInstance, services: TasksServices): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { notes, calls } = services;

  app.post(
    '/api/v1.7/app/:appId/customer/:customerId/notes',
    {
      // Up to 10,000 characters of Markdown.
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags: noteTags,
        summary: 'Write a note on a customer the caller may see (Markdown; @[label](member:<user id>) mentions a member)',
        description: 'content_required, content_invalid (over 10,000 characters or 50 mentions), customer_not_found. See docs/tasks.md.',
        params: CustomerNotesParams,
        body: NoteBody,
        response: businessResponses(Note),
      },
    },
    async (request) => ok(await notes.create(actorOf(request), { customerId: request.params.customerId, content: request.body.content })),
  );

  app.get(
    '/api/v1.7/app/:appId/customer/:customerId/notes',
    {
      schema: {
        tags: noteTags,
        summary: "A customer's notes, newest first",
        params: CustomerNotesParams,
        querystring: NotesQuery,
        response: businessResponses(Type.Array(Note)),
      },
    },
    async (request) => ok(await notes.list(actorOf(request), { customerId: request.params.customerId, page: page(request.query) })),
  );

  app.put(
    '/api/v1.7/app/:appId/customer/:customerId/note/:noteId',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags: noteTags,
        summary: "Edit a note's content (its author only)",
        description: 'note_not_found, note_not_yours, content_required, content_invalid, customer_not_found.',
        params: NoteParams,
        body: NoteBody,
        response: businessResponses(Note),
      },
    },
    async (request) => ok(await notes.edit(actorOf(request), { ...request.params, content: request.body.content })),
  );

  app.delete(
    '/api/v1.7/app/:appId/customer/:customerId/note/:noteId',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags: noteTags,
        summary: 'Delete a note (its author, the Master or an Admin), with its timeline record',
        params: NoteParams,
        response: businessResponses(Type.Boolean()),
      },
    },
    async (request) => ok(await notes.remove(actorOf(request), request.params)),
  );

  app.post(
    '/api/v1.7/app/:appId/customer/:customerId/calls',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags: noteTags,
        summary: 'Log a call with a customer the caller may see: a Call record, its call behaviour record and optionally a note, together',
        description: 'call_time_invalid, direction_invalid, content_invalid (the note), customer_not_found. See docs/tasks.md.',
        params: CustomerNotesParams,
        body: CallBody,
        response: businessResponses(LoggedCall),
      },
    },
    async (request) => ok(await calls.log(actorOf(request), { customerId: request.params.customerId, call: request.body })),
  );
}

/** Tasks about customers (docs/tasks.md "Tasks"). */
async function taskRoutes(fastify: FastifyInstance, services: TasksServices): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { tasks } = services;

  app.post(
    '/api/v1.7/app/:appId/tasks',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags: taskTags,
        summary: 'Make a task about a customer the caller may see, due at a time, for the caller or another member who may see it',
        description:
          'title_required, title_invalid, due_at_required, due_at_invalid, assignee_id_invalid, task_kind_invalid, notes_invalid, customer_not_found.',
        params: AppIdParams,
        body: TaskBody,
        response: businessResponses(Task),
      },
    },
    async (request) => ok(await tasks.create(actorOf(request), request.body)),
  );

  app.get(
    '/api/v1.7/app/:appId/tasks',
    {
      schema: {
        tags: taskTags,
        summary: 'Tasks of the customers the caller may see: by due time (soonest first; status=done latest first)',
        description: 'time_zone_invalid. `due` is read in `time_zone` (default the server TIME_ZONE). See docs/tasks.md.',
        params: AppIdParams,
        querystring: TasksQuery,
        response: businessResponses(Type.Array(Task)),
      },
    },
    async (request) => ok(await tasks.list(actorOf(request), { query: request.query, page: page(request.query) })),
  );

  app.put(
    '/api/v1.7/app/:appId/task/:taskId',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags: taskTags,
        summary: 'Change a task: mark it done (status=done) or open, reschedule, reassign, edit',
        description: 'task_not_found, task_status_invalid, and the create call codes of the fields given.',
        params: TaskParams,
        body: TaskEdit,
        response: businessResponses(Task),
      },
    },
    async (request) => ok(await tasks.edit(actorOf(request), { taskId: request.params.taskId, change: request.body })),
  );

  app.delete(
    '/api/v1.7/app/:appId/task/:taskId',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags: taskTags,
        summary: 'Delete a task, with its timeline record',
        params: TaskParams,
        response: businessResponses(Type.Boolean()),
      },
    },
    async (request) => ok(await tasks.remove(actorOf(request), request.params.taskId)),
  );
}

export async function tasksRoutes(fastify: FastifyInstance, opts: { tasks: TasksServices }): Promise<void> {
  await noteRoutes(fastify, opts.tasks);
  await taskRoutes(fastify, opts.tasks);
}
