import type { Selectable } from 'kysely';
import type { FilePagesTable, FilesTable } from '../../db/index.ts';
import type { Clock } from '../../lib/time.ts';

export type FileRow = Selectable<FilesTable>;
export type FilePageRow = Selectable<FilePagesTable>;

export type FileStatus = 'processing' | 'ready' | 'failed';

/** A file as the API shows it (docs/files.md). */
export function toFile(f: FileRow, clock: Clock) {
  return {
    id: f.id,
    appId: f.app_id,
    name: f.name,
    size: f.size,
    mimeType: f.mime_type,
    pageCount: f.page_count,
    status: f.status as FileStatus,
    renderedPages: f.rendered_pages,
    version: f.version,
    failure: f.failure,
    createdAt: clock.format(f.created_at),
    updatedAt: clock.format(f.updated_at),
  };
}

export type FileResponse = ReturnType<typeof toFile>;
