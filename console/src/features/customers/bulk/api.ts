import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../shared/api/client.ts';
import { type DownloadedFile, readFile } from '../../../shared/api/download.ts';
import { isTransient } from '../../../shared/api/queryClient.ts';

/** Polling of a bulk job while it runs. */
const POLL_MS = 1000;

export type BulkAction = 'assign' | 'group' | 'campaign' | 'enroll' | 'export' | 'delete';

/** Which customers a bulk action takes: those chosen, or every one matching the list's filters (frozen by the server). */
export type BulkTarget = { customerIds: string[] } | { all: { svcUserId: string; keyword?: string; groupId?: string } };

/** What the bulk endpoint takes (docs/customers.md "Bulk actions"). */
export type BulkRequest = BulkTarget & {
  action: BulkAction;
  targetSvcUserId?: number;
  groupId?: string;
  campaignId?: string;
  sequenceId?: string;
  format?: 'csv' | 'xlsx';
};

export const bulkQueries = {
  all: (appId: string) => ['customer-bulk', appId] as const,
  /** A job, polled until it is done or failed. */
  job: (appId: string, bulkId: string) =>
    queryOptions({
      queryKey: [...bulkQueries.all(appId), 'job', bulkId],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/customers/bulk/{bulkId}', { params: { path: { appId, bulkId } } })),
      refetchInterval: (q) => (q.state.data && isSettled(q.state.data) ? false : POLL_MS),
      meta: { silent: true },
      retry: (n: number, err: unknown) => n < 3 && isTransient(err),
      retryDelay: POLL_MS,
    }),
  /** The caller's recent jobs (Master and Admin: everyone's), asked again while one of them runs. */
  recent: (appId: string) =>
    queryOptions({
      queryKey: [...bulkQueries.all(appId), 'recent'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/customers/bulk', { params: { path: { appId } } })),
      refetchInterval: (q) => (q.state.data?.some((j) => !isSettled(j)) ? POLL_MS : false),
      // A notice the page shows when there is something to show: its failures are not the user's concern.
      meta: { silent: true },
      retry: (n: number, err: unknown) => n < 3 && isTransient(err),
      retryDelay: POLL_MS,
    }),
  /** The project's recent campaigns (a bulk "add to campaign" picks one; only one not yet sending takes customers). */
  campaigns: (appId: string) =>
    queryOptions({
      queryKey: [...bulkQueries.all(appId), 'campaigns'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/posts', { params: { query: { app_id: appId, start_index: 0, count: 50 } } })),
    }),
  /** The project's sequences (a bulk "enrol in sequence" picks one). */
  sequences: (appId: string) =>
    queryOptions({
      queryKey: ['sequences', appId, 'list'],
      queryFn: async () => unwrap(await api.GET('/api/v1.7/app/{appId}/sequences', { params: { path: { appId } } })),
    }),
};

export type BulkJob = Awaited<ReturnType<NonNullable<ReturnType<typeof bulkQueries.job>['queryFn']>>>;

export const isSettled = (job: { status: string }): boolean => job.status === 'done' || job.status === 'failed';

/** Starts a bulk action: answers the job, queued. */
export function useStartBulk(appId: string) {
  const client = useQueryClient();
  return useMutation({
    meta: { silent: true },
    mutationFn: async (body: BulkRequest) =>
      unwrap(await api.POST('/api/v1.7/app/{appId}/customers/bulk', { params: { path: { appId } }, body: body as never })),
    onSuccess: (job) => {
      client.setQueryData(bulkQueries.job(appId, job.id).queryKey, job);
      void client.invalidateQueries({ queryKey: [...bulkQueries.all(appId), 'recent'] });
    },
  });
}

/** A finished bulk export's file. */
export async function bulkFile(appId: string, bulkId: string, format: string): Promise<DownloadedFile> {
  return readFile(
    await api.GET('/api/v1.7/app/{appId}/customers/bulk/{bulkId}/file', { params: { path: { appId, bulkId } }, parseAs: 'stream' }),
    `customers.${format}`,
  );
}
