import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../shared/api/client.ts';
import { isTransient } from '../../../shared/api/queryClient.ts';
import { type DownloadedFile, readFile } from '../../../shared/api/download.ts';
import { customerQueries } from '../api.ts';
import { type ImportJobView, isSettled, previewPart } from './model.ts';

export type FileFormat = 'csv' | 'xlsx';

/** Polling of a job while it runs. */
const POLL_MS = 1000;

/** A poll is asked again after a network failure or the server's `overloaded` (a large import on SQLite holds it by the batch). */
const pollRetry = {
  retry: (n: number, err: unknown) => n < 3 && isTransient(err),
  retryDelay: POLL_MS,
};

export const importQueries = {
  all: (appId: string) => ['customer-imports', appId] as const,
  /** The imports the member started, newest first (a running one is shown again after a reload). */
  recent: (appId: string, memberId: number) =>
    queryOptions({
      queryKey: [...importQueries.all(appId), 'recent', memberId],
      queryFn: async () =>
        unwrap(
          await api.GET('/api/v1.7/app/{appId}/member/{svcUserId}/customer-imports', {
            params: { path: { appId, svcUserId: String(memberId) }, query: { count: 5 } },
          }),
        ),
      refetchInterval: (q) => (q.state.data?.some((j) => !isSettled(j)) ? POLL_MS : false),
      // A notice the page shows when there is something to show: its failures are not the user's concern.
      meta: { silent: true },
      ...pollRetry,
    }),
  /** A job, polled until it is done or failed. */
  job: (appId: string, memberId: number, importId: string) =>
    queryOptions({
      queryKey: [...importQueries.all(appId), 'job', importId],
      queryFn: async () =>
        unwrap(
          await api.GET('/api/v1.7/app/{appId}/member/{svcUserId}/customer-import/{importId}', {
            params: { path: { appId, svcUserId: String(memberId), importId } },
          }),
        ),
      refetchInterval: (q) => (q.state.data && isSettled(q.state.data) ? false : POLL_MS),
      // The wizard shows a failure itself.
      meta: { silent: true },
      ...pollRetry,
    }),
  /** A member's groups (an import's group must be one of its owner's). */
  groupsOf: (appId: string, ownerId: number) =>
    queryOptions({
      queryKey: ['groups', appId, 'of', ownerId],
      queryFn: async () =>
        unwrap(await api.GET('/api/v1.7/app/{appId}/customer-groups', { params: { path: { appId }, query: { svc_user_id: ownerId } } })),
    }),
};

export type ImportJob = ImportJobView;

/** What the server reads of a file: its columns with its suggested mapping, and its first rows. */
export function usePreview(appId: string) {
  return useMutation({
    meta: { silent: true },
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append('file', previewPart(file), file.name);
      return unwrap(
        await api.POST('/api/v1.7/app/{appId}/customer-import/preview', {
          params: { path: { appId } },
          // multipart/form-data: the browser sets the type and boundary.
          body: form as never,
          bodySerializer: (b: unknown) => b as FormData,
        }),
      );
    },
  });
}

export interface ImportOptions {
  file: File;
  /** The `mapping` field (model.ts mappingField). */
  mapping: string;
  ownerId: number;
  groupId: string | undefined;
  policy: 'skip' | 'update' | 'merge';
  dryRun: boolean;
}

/** Starts an import (or a dry run) as the acting member: answers the job, queued. */
export function useStartImport(appId: string, actingUserId: number) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (o: ImportOptions) => {
      const form = new FormData();
      form.append('mapping', o.mapping);
      form.append('duplicate_policy', o.policy);
      form.append('dry_run', String(o.dryRun));
      if (o.ownerId !== actingUserId) form.append('svc_user_id', String(o.ownerId));
      if (o.groupId) form.append('group_id', o.groupId);
      // The file last: the server reads the fields before it.
      form.append('file', o.file, o.file.name);
      return unwrap(
        await api.POST('/api/v1.7/app/{appId}/member/{svcUserId}/customer-imports', {
          params: { path: { appId, svcUserId: String(actingUserId) } },
          // multipart/form-data: the browser sets the type and boundary.
          body: form as never,
          bodySerializer: (b: unknown) => b as FormData,
        }),
      ) as ImportJob;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: importQueries.all(appId) }),
  });
}

/** Once a real import is done: the list shows its customers. */
export function refreshCustomers(client: ReturnType<typeof useQueryClient>, appId: string): Promise<void> {
  return client.invalidateQueries({ queryKey: customerQueries.all(appId) });
}

export const downloads = {
  template: async (appId: string, format: FileFormat): Promise<DownloadedFile> =>
    readFile(
      await api.GET('/api/v1.7/app/{appId}/customer-import/template', {
        params: { path: { appId }, query: { format } },
        parseAs: 'stream',
      }),
      `customers-template.${format}`,
    ),
  problems: async (appId: string, memberId: number, importId: string): Promise<DownloadedFile> =>
    readFile(
      await api.GET('/api/v1.7/app/{appId}/member/{svcUserId}/customer-import/{importId}/problems.csv', {
        params: { path: { appId, svcUserId: String(memberId), importId } },
        parseAs: 'stream',
      }),
      `problems-${importId}.csv`,
    ),
  /** The customer list with its filters, as the list's URL holds them. */
  customers: async (
    appId: string,
    format: FileFormat,
    filter: { keyword: string; group: string | undefined; owner: string },
    onProgress: (bytes: number) => void,
    signal: AbortSignal,
  ): Promise<DownloadedFile> =>
    readFile(
      await api.GET('/api/v1.7/app/{appId}/customers/export', {
        params: {
          path: { appId },
          query: {
            format,
            ...(filter.keyword ? { keyword: filter.keyword } : {}),
            ...(filter.group !== undefined ? { group_id: filter.group } : {}),
            ...(filter.owner !== 'all' && Number(filter.owner) > 0 ? { svc_user_id: Number(filter.owner) } : {}),
          },
        },
        parseAs: 'stream',
        signal,
      }),
      `customers.${format}`,
      onProgress,
    ),
};
