import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared/api/client.ts';
import { customerQueries } from '../customers/index.ts';
import type { EnrollmentState, toBody } from './model.ts';

const ENROLLMENTS_PAGE = 20;

export const sequenceQueries = {
  all: (appId: string) => ['sequences', appId] as const,
  /** The project's sequences, each with its enrolments counted by state. */
  list: (appId: string) =>
    queryOptions({
      queryKey: [...sequenceQueries.all(appId), 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/sequences', { params: { path: { appId } } })),
    }),
  item: (appId: string, sequenceId: string) =>
    queryOptions({
      queryKey: [...sequenceQueries.all(appId), 'item', sequenceId],
      queryFn: async () =>
        unwrap(await api.GET('/api/v1.7/app/{appId}/sequence/{sequenceId}', { params: { path: { appId, sequenceId } } })),
      meta: { silent: true },
    }),
  funnel: (appId: string, sequenceId: string) =>
    queryOptions({
      queryKey: [...sequenceQueries.all(appId), 'item', sequenceId, 'funnel'],
      queryFn: async () =>
        unwrap(await api.GET('/api/v1.7/app/{appId}/sequence/{sequenceId}/funnel', { params: { path: { appId, sequenceId } } })),
    }),
  /** A page of a sequence's enrolments; one more than shown says whether there is a next page. */
  enrollments: (appId: string, sequenceId: string, state: EnrollmentState | undefined, page: number) =>
    queryOptions({
      queryKey: [...sequenceQueries.all(appId), 'item', sequenceId, 'enrollments', state ?? 'any', page],
      queryFn: async () => {
        const rows = unwrap(
          await api.GET('/api/v1.7/app/{appId}/sequence/{sequenceId}/enrollments', {
            params: {
              path: { appId, sequenceId },
              query: { ...(state ? { state } : {}), start_index: (page - 1) * ENROLLMENTS_PAGE, count: ENROLLMENTS_PAGE + 1 },
            },
          }),
        );
        return { rows: rows.slice(0, ENROLLMENTS_PAGE), hasMore: rows.length > ENROLLMENTS_PAGE };
      },
      placeholderData: keepPreviousData,
    }),
  /** The project's send window, daily cap and reply address. */
  settings: (appId: string) =>
    queryOptions({
      queryKey: [...sequenceQueries.all(appId), 'settings'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/sequence-settings', { params: { path: { appId } } })),
    }),
  /** The project's decks a sequence may follow: its file links shared with anyone (a directed one is a customer's own), newest first. */
  decks: (appId: string) =>
    queryOptions({
      queryKey: [...sequenceQueries.all(appId), 'decks'],
      queryFn: async () => {
        const rows = unwrap(
          await api.GET('/api/v1.7/app/{appId}/links', { params: { path: { appId }, query: { start_index: 0, count: 200 } } }),
        );
        return rows.filter((l) => l.type === 1 && l.isDirectional === 0).map((l) => ({ id: l.id, name: l.name || l.shortName || l.id }));
      },
    }),
  /** Under the customer's key: what refreshes the customer (a live event) refreshes its enrolments. */
  ofCustomer: (appId: string, customerId: string) =>
    queryOptions({
      queryKey: [...customerQueries.all(appId), 'item', customerId, 'enrollments'],
      queryFn: async () =>
        unwrap(await api.GET('/api/v1.7/app/{appId}/customer/{customerId}/enrollments', { params: { path: { appId, customerId } } })),
    }),
};

export type SequenceSummary = Awaited<ReturnType<NonNullable<ReturnType<typeof sequenceQueries.list>['queryFn']>>>[number];
export type Sequence = Awaited<ReturnType<NonNullable<ReturnType<typeof sequenceQueries.item>['queryFn']>>>;
export type Funnel = Awaited<ReturnType<NonNullable<ReturnType<typeof sequenceQueries.funnel>['queryFn']>>>;
export type SendSettings = Awaited<ReturnType<NonNullable<ReturnType<typeof sequenceQueries.settings>['queryFn']>>>;
export type CustomerEnrollment = Awaited<ReturnType<NonNullable<ReturnType<typeof sequenceQueries.ofCustomer>['queryFn']>>>[number];

type SequenceBody = ReturnType<typeof toBody>;

/** Makes a sequence (no id) or its next version; the editor shows its own failures. */
export function useSaveSequence(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async ({ id, body }: { id: string | undefined; body: SequenceBody }) =>
      id === undefined
        ? unwrap(await api.POST('/api/v1.7/app/{appId}/sequences', { params: { path: { appId } }, body }))
        : unwrap(await api.PUT('/api/v1.7/app/{appId}/sequence/{sequenceId}', { params: { path: { appId, sequenceId: id } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: sequenceQueries.all(appId) }),
  });
}

/** Archives a sequence: its running enrolments exit. */
export function useDeleteSequence(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (sequenceId: string) =>
      unwrap(await api.DELETE('/api/v1.7/app/{appId}/sequence/{sequenceId}', { params: { path: { appId, sequenceId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: sequenceQueries.all(appId) }),
  });
}

export type SettingsBody = Omit<SendSettings, 'inboundUrl'>;

/** Saves the send window, cap and reply address (Master and Admin); the form shows its own failures. */
export function useSaveSettings(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (body: SettingsBody) =>
      unwrap(await api.PUT('/api/v1.7/app/{appId}/sequence-settings', { params: { path: { appId } }, body })),
    onSuccess: (saved) => client.setQueryData(sequenceQueries.settings(appId).queryKey, saved),
  });
}

export type EnrollmentChange = 'pause' | 'resume' | 'remove' | 'replied';

/** Pauses, resumes or ends an enrolment (removed, or the customer replied). */
export function useChangeEnrollment(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, change }: { id: string; change: EnrollmentChange }) => {
      const params = { params: { path: { appId, enrollmentId: id } } };
      if (change === 'pause') return unwrap(await api.POST('/api/v1.7/app/{appId}/enrollment/{enrollmentId}/pause', params));
      if (change === 'resume') return unwrap(await api.POST('/api/v1.7/app/{appId}/enrollment/{enrollmentId}/resume', params));
      return unwrap(
        await api.POST('/api/v1.7/app/{appId}/enrollment/{enrollmentId}/exit', {
          ...params,
          body: { reason: change === 'replied' ? 'replied' : 'removed' },
        }),
      );
    },
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: sequenceQueries.all(appId) }),
        client.invalidateQueries({ queryKey: [...customerQueries.all(appId), 'item'] }),
      ]),
  });
}

/**
 * An e-mail step rendered with a real customer's values (the campaigns' render: escaping, links,
 * the unsubscribe footer). Nothing is stored.
 */
export const previewQuery = (appId: string, draft: { title: string; html: string; customerId: string | undefined }) =>
  queryOptions({
    queryKey: [...sequenceQueries.all(appId), 'preview', draft],
    queryFn: async () =>
      unwrap(
        await api.POST('/api/v1.7/app/{appId}/post-previews', {
          params: { path: { appId } },
          body: { title: draft.title, html: draft.html, ...(draft.customerId ? { customer_id: draft.customerId } : {}) },
        }),
      ),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
