import { infiniteQueryOptions, keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { customerQueries } from '../customers/index.ts';
import type { TaskQuery } from './model.ts';

const NOTES_PAGE = 20;
const TASKS_PAGE = 20;
/** A customer's open tasks shown on its page: the soonest; the Tasks page has them all. */
export const CUSTOMER_TASKS = 50;

/** A customer's cached data (its detail, counters, timeline, notes): what a note, task or call changes. */
const customerItem = (appId: string, customerId: string) => [...customerQueries.all(appId), 'item', customerId] as const;

export const noteQueries = {
  /** Under the customer's key: what refreshes the customer (a live event) refreshes its notes. */
  list: (appId: string, customerId: string) =>
    infiniteQueryOptions({
      queryKey: [...customerItem(appId, customerId), 'notes'],
      initialPageParam: 0,
      queryFn: async ({ pageParam }) =>
        unwrap(
          await api.GET('/api/v1.7/app/{appId}/customer/{customerId}/notes', {
            params: { path: { appId, customerId }, query: { start_index: pageParam, count: NOTES_PAGE } },
          }),
        ),
      getNextPageParam: (last, pages) => (last.length < NOTES_PAGE ? undefined : pages.length * NOTES_PAGE),
    }),
};

export const taskQueries = {
  all: (appId: string) => ['tasks', appId] as const,
  /** A page of tasks; one more than shown says whether there is a next page (the API answers pages, not totals). */
  list: (appId: string, query: TaskQuery, page: number, size = TASKS_PAGE) =>
    queryOptions({
      queryKey: [...taskQueries.all(appId), 'list', query, page, size],
      queryFn: async () => {
        const rows = unwrap(
          await api.GET('/api/v1.7/app/{appId}/tasks', {
            params: { path: { appId }, query: { ...query, start_index: (page - 1) * size, count: size + 1 } },
          }),
        );
        return { rows: rows.slice(0, size), hasMore: rows.length > size };
      },
      placeholderData: keepPreviousData,
    }),
};

export type Note = Awaited<ReturnType<NonNullable<ReturnType<typeof noteQueries.list>['queryFn']>>>[number];
export type Task = Awaited<ReturnType<NonNullable<ReturnType<typeof taskQueries.list>['queryFn']>>>['rows'][number];

/** Writes, edits (`id`) or deletes (`content` null) a note of a customer; the form shows its own failures. */
export function useSaveNote(appId: string, customerId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async ({ id, content }: { id?: string; content: string | null }) => {
      const path = { appId, customerId };
      if (id === undefined)
        return unwrap(
          await api.POST('/api/v1.7/app/{appId}/customer/{customerId}/notes', { params: { path }, body: { content: content ?? '' } }),
        );
      const note = { params: { path: { ...path, noteId: id } } };
      if (content === null) return unwrap(await api.DELETE('/api/v1.7/app/{appId}/customer/{customerId}/note/{noteId}', note));
      return unwrap(await api.PUT('/api/v1.7/app/{appId}/customer/{customerId}/note/{noteId}', { ...note, body: { content } }));
    },
    onSuccess: () => client.invalidateQueries({ queryKey: customerItem(appId, customerId) }),
  });
}

export interface NewTask {
  customer_id: string;
  title: string;
  due_at: string;
  kind: string;
  assignee_id: number;
  notes?: string;
}

/** Makes a task; the form shows its own failures. */
export function useAddTask(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (body: NewTask) => unwrap(await api.POST('/api/v1.7/app/{appId}/tasks', { params: { path: { appId } }, body })),
    onSuccess: (task) =>
      Promise.all([
        client.invalidateQueries({ queryKey: taskQueries.all(appId) }),
        client.invalidateQueries({ queryKey: customerItem(appId, task.customerId) }),
      ]),
  });
}

/** Marks a task done or open again; a failure is shown by the console's error handler. */
export function useSetTaskStatus(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, status }: { id: string; status: 'open' | 'done' }) =>
      unwrap(await api.PUT('/api/v1.7/app/{appId}/task/{taskId}', { params: { path: { appId, taskId: id } }, body: { status } })),
    onSuccess: (task) => {
      // Shown ticked (or not) at once where it is listed, until the lists are read again (a done one then leaves the open ones).
      client.setQueriesData<{ rows: Task[]; hasMore: boolean }>({ queryKey: [...taskQueries.all(appId), 'list'] }, (old) =>
        old ? { ...old, rows: old.rows.map((r) => (r.id === task.id ? task : r)) } : old,
      );
      return Promise.all([
        client.invalidateQueries({ queryKey: taskQueries.all(appId) }),
        client.invalidateQueries({ queryKey: customerItem(appId, task.customerId) }),
      ]);
    },
  });
}

export interface NewCall {
  call_time: string;
  duration: number;
  call_status: 0 | 1;
  direction: 'out' | 'in';
  note?: string;
}

/** Logs a call with a customer (its Call record, its timeline entry, its note); the form shows its own failures. */
export function useLogCall(appId: string, customerId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (body: NewCall) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/customer/{customerId}/calls', { params: { path: { appId, customerId } }, body })),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: customerItem(appId, customerId) }),
        // The project's calls page.
        client.invalidateQueries({ queryKey: ['calls', appId] }),
      ]),
  });
}
