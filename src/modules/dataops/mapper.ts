import type { CustomerImportProblemsTable, CustomerImportsTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';
/** What a row whose duplicate key names a live customer does (the customers service's DuplicatePolicy). */
type DuplicatePolicy = 'skip' | 'update' | 'merge';
import type { Clock } from '../../lib/time.ts';

export type ImportRow = Selectable<CustomerImportsTable>;
export type ImportProblemRow = Selectable<CustomerImportProblemsTable>;

/** What an import job keeps besides its counters (the `options` column). */
export interface ImportJobOptions {
  /** The attribute each column fills (null: ignored), by column number. */
  columns: (string | null)[];
  /** The file's header, as read. */
  header: string[];
  encoding: string;
  groupId?: string | undefined;
  policy: DuplicatePolicy;
  dryRun: boolean;
  /** Master/Admin (or the CLI): rows may name another owner. */
  mayAssignOthers: boolean;
}

export interface ImportJobResponse {
  id: string;
  status: string;
  total: number;
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  dryRun: boolean;
  policy: DuplicatePolicy;
  fileName: string;
  /** Which attribute each column of the file fills ("" for an ignored column). */
  mapping: { column: string; attribute: string }[];
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toImportJob(r: ImportRow, clock: Clock): ImportJobResponse {
  const opts = JSON.parse(r.options) as ImportJobOptions;
  return {
    id: r.id,
    status: r.status,
    total: Number(r.total),
    processed: Number(r.processed),
    created: Number(r.created),
    updated: Number(r.updated),
    skipped: Number(r.skipped),
    failed: Number(r.failed),
    dryRun: opts.dryRun,
    policy: opts.policy,
    fileName: r.file_name,
    mapping: opts.header.map((column, i) => ({ column, attribute: opts.columns[i] ?? '' })),
    error: r.error,
    createdAt: clock.format(r.created_at),
    updatedAt: clock.format(r.updated_at),
  };
}
