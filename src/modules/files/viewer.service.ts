import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import type { FileStorage } from '../../lib/file-storage.ts';
import type { FileRow } from './mapper.ts';
import { type PageImage, type PageRequest, type ViewerFile, fileNotFound, kindOfMime, originalKey, pageKey } from './model.ts';
import { filesRepository as repo } from './repository.ts';

/**
 * Files as the public viewer serves them (docs/files.md): its caller, the links module, has checked
 * that the link is open to the visitor, so no membership is asked. Also the page images members read
 * (the uploads service asks here once it has the actor).
 */
export function createFileViewer(ctx: AppContext, storage: FileStorage) {
  const db = ctx.database.db;

  /** The project's file, or file_not_found. */
  async function fileOf(appId: string, id: string): Promise<FileRow> {
    const row = await repo.find(db, appId, id);
    if (!row) throw fileNotFound();
    return row;
  }

  return {
    /**
     * What the public viewer shows of a file a link shares: the current version's name, type, page
     * count and the sizes of its rendered pages. Null when the project has no such file.
     */
    async viewerFile(appId: string, id: string): Promise<ViewerFile | null> {
      const file = await repo.find(db, appId, id);
      if (!file) return null;
      const pages = (await repo.pages(db, appId, id)).filter((p) => p.content_id === file.content_id);
      return {
        id: file.id,
        name: file.name,
        mimeType: file.mime_type,
        status: file.status as ViewerFile['status'],
        pageCount: file.page_count,
        version: file.content_id,
        versionNumber: file.version,
        pages: pages.map((p) => ({
          n: p.page,
          desktop: { width: p.desktop_width, height: p.desktop_height },
          phone: { width: p.phone_width, height: p.phone_height },
        })),
      };
    },

    /**
     * A rendered page's image. `page_not_ready` while the page is still to come, `page_not_found`
     * beyond the last page or when rendering failed.
     */
    async viewerPage(appId: string, request: PageRequest): Promise<PageImage> {
      const { fileId: id, n, width, ifNoneMatch } = request;
      const file = await fileOf(appId, id);
      if (n < 1 || n > file.page_count || file.status === 'failed') {
        throw failure('page_not_found', `The file has ${file.page_count} page${file.page_count === 1 ? '' : 's'}`);
      }
      const row = await repo.page(db, appId, id, n);
      if (!row || row.content_id !== file.content_id) {
        throw failure('page_not_ready', `Page ${n} is not rendered yet (${file.rendered_pages} of ${file.page_count} are)`);
      }
      const etag = `"${file.content_id}.${n}.${width}"`;
      if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim() === etag)) return { notModified: true, etag };
      const opened = await storage.open(pageKey({ appId, id, contentId: file.content_id }, n, width));
      if (!opened) throw failure('page_not_ready', `Page ${n} is not rendered yet`);
      return { notModified: false, etag, contentType: 'image/webp', size: opened.size, body: opened.stream };
    },

    /** The current version's original, for a link that allows its download; null when there is none. */
    async viewerOriginal(appId: string, id: string): Promise<{ name: string; contentType: string; size: number; body: Readable } | null> {
      const file = await repo.find(db, appId, id);
      if (!file) return null;
      const opened = await storage.open(originalKey({ appId, id, contentId: file.content_id }, kindOfMime(file.mime_type)));
      if (!opened) return null;
      return { name: file.name, contentType: file.mime_type, size: opened.size, body: opened.stream };
    },
  };
}

export type FileViewer = ReturnType<typeof createFileViewer>;
