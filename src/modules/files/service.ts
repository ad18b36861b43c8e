import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { FileStorage } from '../../lib/file-storage.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import type { AuditRecorder } from '../audit/service.ts';
import { UploadsUnderWay, createPageRenderer } from './model.ts';
import { createFileRendering } from './rendering.service.ts';
import { createFileStamps } from './stamps.service.ts';
import { createFileUploads } from './uploads.service.ts';
import { createFileViewer } from './viewer.service.ts';
import type { FileStatus } from './mapper.ts';
import { filesRepository } from './repository.ts';

export type { IncomingFile, PageImage, PageRequest, PageWidth, ViewerFile } from './model.ts';
export type { FileRendering } from './rendering.service.ts';
export type { FileStamps, StampedImage, StampedPageRequest } from './stamps.service.ts';
export type { FileUploads, UploadCheck, UploadInput } from './uploads.service.ts';
export type { FileViewer } from './viewer.service.ts';
export type { FileStatus } from './mapper.ts';

/**
 * Files (docs/files.md, ADR 0019), one service per caller: `uploads` (members upload a PDF, or a PNG
 * or JPEG as a one-page file, give new versions and read files and their pages), `viewer` (the public
 * viewer of shared links, through the links module: no membership), `stamps` (its page images and
 * download with a watermark drawn in, ADR 0044) and `rendering` (the background job `file-render`
 * that draws the pages of stored uploads). Uploads, stamps and rendering share the page renderer (its
 * child checks an upload by opening it, and draws watermarks) and the count of uploads under way,
 * which the renderer lets go first.
 */
export function createFilesServices(ctx: AppContext, deps: { storage: FileStorage; audit: AuditRecorder; defineJob: DefineJob }) {
  const { storage, audit } = deps;
  const renderer = createPageRenderer(ctx);
  const uploading = new UploadsUnderWay();
  const job = deps.defineJob(createFileRendering(ctx, { storage, renderer, uploading }).job);
  const viewer = createFileViewer(ctx, storage);
  const stamps = createFileStamps(ctx, { storage, renderer });
  const uploads = createFileUploads(ctx, { storage, audit, renderer, uploading, viewer, rendered: () => job.poke() });
  return { uploads, viewer, stamps };
}

export type FilesServices = ReturnType<typeof createFilesServices>;

/**
 * The facts of a file other modules reason about: its name and page count (the scoring module's deck
 * reads), its version, whether its pages are rendered (a data room's documents).
 */
export interface FileFacts {
  name: string;
  pageCount: number;
  version: number;
  status: FileStatus;
  /** Pages rendered so far (1…renderedPages can be shown). */
  renderedPages: number;
}

/**
 * Files' names and page counts, from the database alone (the scoring module is built before the
 * files services), in the caller's transaction: at most 1,000 ids a call.
 */
export function createFileFacts() {
  return {
    async of(db: Kysely<Database>, appId: string, ids: string[]): Promise<Map<string, FileFacts>> {
      const rows = await filesRepository.facts(db, appId, ids.slice(0, 1000));
      return new Map(
        rows.map((r) => [
          r.id,
          {
            name: r.name,
            pageCount: Number(r.page_count),
            version: Number(r.version),
            status: r.status as FileStatus,
            renderedPages: Number(r.rendered_pages),
          },
        ]),
      );
    },
  };
}

export type FileFactsReader = ReturnType<typeof createFileFacts>;
