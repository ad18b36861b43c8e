import type { paths } from '@rapport/sdk';

/**
 * The import wizard's state, apart from the screen (docs/console.md "Import and export"): the file's
 * columns and the attribute each fills, as the server suggested them (its preview) and as the user
 * changed them; what is sent with the import; and how a job reads.
 */

/** A column of the file as the server's preview answers it: its header and the attribute it would fill ("" for none). */
export interface PreviewColumn {
  column: string;
  attribute: string;
}

/** An attribute a column may fill: the project's metadata, less the read-only ones (as the template). */
export interface ImportableField {
  name: string;
  title: string;
  required: boolean;
}

/** The attribute each column fills, by column number ("" for none). */
export type ColumnMapping = string[];

/** The mapping the wizard starts from: the server's own, dropping an attribute the console does not offer. */
export function initialMapping(preview: readonly PreviewColumn[], fields: readonly ImportableField[]): ColumnMapping {
  const offered = new Set(fields.map((f) => f.name));
  const used = new Set<string>();
  return preview.map(({ attribute }) => {
    if (attribute === '' || !offered.has(attribute) || used.has(attribute)) return '';
    used.add(attribute);
    return attribute;
  });
}

/**
 * Column `index` fills `attribute` ("" ignores it). An attribute is filled by one column at most (as
 * the server maps): a column that filled it before is left unmapped.
 */
export function assign(mapping: ColumnMapping, index: number, attribute: string): ColumnMapping {
  return mapping.map((current, i) => {
    if (i === index) return attribute;
    return attribute !== '' && current === attribute ? '' : current;
  });
}

/** The import's `mapping` field: every column by its number, so the server maps exactly what the user sees. */
export function mappingField(mapping: ColumnMapping): string {
  return JSON.stringify(Object.fromEntries(mapping.map((attribute, i) => [String(i), attribute])));
}

/** Required attributes no column fills: every row would fail on them (unless it only updates a customer). */
export function unmappedRequired(mapping: ColumnMapping, fields: readonly ImportableField[]): ImportableField[] {
  const mapped = new Set(mapping.filter(Boolean));
  return fields.filter((f) => f.required && !mapped.has(f.name));
}

/** Whether any column is mapped (the server refuses a file none of whose columns is). */
export function anyMapped(mapping: ColumnMapping): boolean {
  return mapping.some((a) => a !== '');
}

/** The bytes a preview needs: a CSV's first 64 KiB (the server detects its encoding from as many); a workbook whole. */
export const PREVIEW_BYTES = 64 * 1024;
export function previewPart(file: File): Blob {
  const workbook = /\.xlsx$/i.test(file.name) || file.type === 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  return workbook || file.size <= PREVIEW_BYTES ? file : file.slice(0, PREVIEW_BYTES);
}

/** A job as the API answers it. */
export type ImportJobView =
  paths['/api/v1.7/app/{appId}/member/{svcUserId}/customer-import/{importId}']['get']['responses'][200]['content']['application/json']['data'];

export function isSettled(job: Pick<ImportJobView, 'status'>): boolean {
  return job.status === 'done' || job.status === 'failed';
}

/** Percent of rows done; 0 until the rows are counted. */
export function percentDone(job: Pick<ImportJobView, 'status' | 'total' | 'processed'>): number {
  if (job.status === 'done') return 100;
  if (job.total <= 0) return 0;
  return Math.min(100, Math.floor((job.processed / job.total) * 100));
}

/** The most recent real (not dry-run) import still queued or running: the one to show again after a reload. */
export function runningImport<J extends Pick<ImportJobView, 'dryRun' | 'status'>>(jobs: readonly J[]): J | undefined {
  return jobs.find((j) => !j.dryRun && !isSettled(j));
}

/**
 * The import the customers page tells of: the one still running, or else the one it was showing
 * when that one ended, so the user learns it finished (and how) instead of seeing the notice vanish.
 */
export function noticedImport<J extends Pick<ImportJobView, 'dryRun' | 'status'> & { id: string }>(
  jobs: readonly J[],
  watched: string | null,
): J | undefined {
  return runningImport(jobs) ?? (watched === null ? undefined : jobs.find((j) => j.id === watched && isSettled(j)));
}

/** A byte count for people ("1.2 MB"). */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
