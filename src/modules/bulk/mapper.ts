import type { Selectable } from 'kysely';
import type { CustomerBulkJobsTable } from '../../db/index.ts';
import type { Clock } from '../../lib/time.ts';

export type BulkRow = Selectable<CustomerBulkJobsTable>;

export const BULK_ACTIONS = ['assign', 'group', 'campaign', 'export', 'delete', 'enroll'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** What a job keeps of its request besides the customers (the `options` column). */
export interface BulkOptions {
  targetSvcUserId?: number | undefined;
  groupId?: string | undefined;
  campaignId?: string | undefined;
  /** An enrolment's sequence (docs/sequences.md). */
  sequenceId?: string | undefined;
  format?: 'csv' | 'xlsx' | undefined;
  /** Whether the customers were "all matching" the list's filters (frozen when asked) rather than chosen one by one. */
  allMatching: boolean;
}

/** A customer a job could not change, and why (an error code and its detail). */
export interface BulkFailureItem {
  customerId: string;
  code: string;
  reason: string;
}

/** The failures of a job: how many of each code, and the first of them with their customer. */
export interface FailureSummary {
  byCode: Record<string, number>;
  first: BulkFailureItem[];
}

/** Failures kept with their customer (the rest are counted by code). */
export const FIRST_FAILURES_KEPT = 50;

export const emptySummary = (): FailureSummary => ({ byCode: {}, first: [] });

/** The summary with a batch's failures added. */
export function addFailures(summary: FailureSummary, failures: BulkFailureItem[]): FailureSummary {
  const byCode = { ...summary.byCode };
  for (const f of failures) byCode[f.code] = (byCode[f.code] ?? 0) + 1;
  const room = Math.max(0, FIRST_FAILURES_KEPT - summary.first.length);
  return { byCode, first: [...summary.first, ...failures.slice(0, room)] };
}

export interface BulkJobResponse {
  id: string;
  action: string;
  status: string;
  total: number;
  processed: number;
  done: number;
  failed: number;
  failures: FailureSummary;
  allMatching: boolean;
  targetSvcUserId: number | null;
  groupId: string | null;
  campaignId: string | null;
  sequenceId: string | null;
  format: string | null;
  /** An export's file, once it is written (its path under the API). */
  fileUrl: string | null;
  error: string | null;
  createdBy: number;
  createdAt: string;
  updatedAt: string;
}

export function toBulkJob(r: BulkRow, clock: Clock): BulkJobResponse {
  const opts = JSON.parse(r.options) as BulkOptions;
  return {
    id: r.id,
    action: r.action,
    status: r.status,
    total: Number(r.total),
    processed: Number(r.processed),
    done: Number(r.succeeded),
    failed: Number(r.failed),
    failures: JSON.parse(r.failures) as FailureSummary,
    allMatching: opts.allMatching,
    targetSvcUserId: opts.targetSvcUserId ?? null,
    groupId: opts.groupId ?? null,
    campaignId: opts.campaignId ?? null,
    sequenceId: opts.sequenceId ?? null,
    format: opts.format ?? null,
    fileUrl: r.result_path !== null && r.status === 'done' ? `/api/v1.7/app/${r.app_id}/customers/bulk/${r.id}/file` : null,
    error: r.error,
    createdBy: Number(r.created_by),
    createdAt: clock.format(r.created_at),
    updatedAt: clock.format(r.updated_at),
  };
}
