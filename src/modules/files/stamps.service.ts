import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { failure, overloaded } from '../../http/errors.ts';
import type { FileStorage } from '../../lib/file-storage.ts';
import { type PageRenderer, RenderError, type RenderedImage, type Stamp } from '../../lib/page-renderer.ts';
import { type JpegPage, pdfOfImages } from '../../lib/pdf-images.ts';
import type { FileRow } from './mapper.ts';
import { type FileVersion, type PageWidth, pageKey } from './model.ts';
import { filesRepository as repo } from './repository.ts';

/** WebP quality (0–100) of a watermarked page image: a little below the stored pages' 80, as it is drawn for every request. */
const STAMPED_WEBP_QUALITY = 60;
/** JPEG quality (0–100) of a watermarked download's pages. */
const STAMPED_JPEG_QUALITY = 80;
/**
 * Watermarked images a process draws or waits to draw at once, in all and for one project (each holds
 * a stored page image, at most a few hundred KB, until its turn): past either, `overloaded` (503,
 * Retry-After). A project's readers cannot take the others' places.
 */
export const MAX_STAMPS_WAITING = 48;
export const MAX_STAMPS_PER_PROJECT = 16;
/** Watermarked downloads a process writes at once, in all and for one project (each draws its pages one after the other). */
export const MAX_STAMPED_DOWNLOADS = 4;
export const MAX_STAMPED_DOWNLOADS_PER_PROJECT = 2;
const RETRY_AFTER_S = 2;

/** A page image with a watermark drawn in: its bytes, to send as they are (never cached, never reused). */
export interface StampedImage {
  contentType: string;
  bytes: Uint8Array;
}

/** A watermarked page asked for: the file, the page (from 1), its width, and the watermark's text. */
export interface StampedPageRequest {
  fileId: string;
  n: number;
  width: PageWidth;
  text: string;
}

/** Places counted in all and per project: `take` answers the place's release, or null when either count is full. */
function places(total: number, perProject: number): (appId: string) => (() => void) | null {
  let all = 0;
  const byProject = new Map<string, number>();
  return (appId) => {
    const mine = byProject.get(appId) ?? 0;
    if (all >= total || mine >= perProject) return null;
    all += 1;
    byProject.set(appId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      all -= 1;
      const left = (byProject.get(appId) ?? 1) - 1;
      if (left > 0) byProject.set(appId, left);
      else byProject.delete(appId);
    };
  };
}

/**
 * The renderer's stamp, bounded. `image`: one watermarked image, in one of MAX_STAMPS_WAITING places
 * (MAX_STAMPS_PER_PROJECT a project). `download`: one of MAX_STAMPED_DOWNLOADS places
 * (MAX_STAMPED_DOWNLOADS_PER_PROJECT a project), whose `draw` stamps its pages (two at a time at most,
 * so outside the images' places) until `release`. Past a limit, `overloaded`; the renderer's failures
 * are `overloaded` (try again) or `page_not_found` (a stored image it cannot read).
 */
export function boundedStamps(renderer: Pick<PageRenderer, 'stamp'>) {
  const imagePlace = places(MAX_STAMPS_WAITING, MAX_STAMPS_PER_PROJECT);
  const downloadPlace = places(MAX_STAMPED_DOWNLOADS, MAX_STAMPED_DOWNLOADS_PER_PROJECT);

  async function draw(appId: string, image: Buffer, mark: Stamp): Promise<RenderedImage> {
    try {
      return await renderer.stamp(image, mark, { owner: appId });
    } catch (err) {
      if (!(err instanceof RenderError)) throw err;
      if (err.kind === 'invalid') throw failure('page_not_found', 'The stored page image could not be read');
      throw overloaded(RETRY_AFTER_S, `The watermark could not be drawn (${err.kind}): try again shortly`);
    }
  }

  return {
    async image(appId: string, image: Buffer, mark: Stamp): Promise<RenderedImage> {
      const release = imagePlace(appId);
      if (release === null) throw overloaded(RETRY_AFTER_S, 'Too many watermarked pages are being drawn: try again shortly');
      try {
        return await draw(appId, image, mark);
      } finally {
        release();
      }
    },

    download(appId: string): { draw(image: Buffer, mark: Stamp): Promise<RenderedImage>; release(): void } {
      const release = downloadPlace(appId);
      if (release === null) throw overloaded(RETRY_AFTER_S * 5, 'Too many watermarked downloads are being written: try again shortly');
      return { draw: (image, mark) => draw(appId, image, mark), release };
    },
  };
}

/**
 * Page images with a watermark drawn in, for the public viewer of a link with one (docs/links.md,
 * "Watermarks and deterrence"; ADR 0044): the stored page image, the watermark drawn over it by the
 * page renderer's child (off the event loop, within its time and memory limits, taking turns by
 * project with uploads' checks), encoded again. The caller (the links module) has checked the link.
 * Bounded by `boundedStamps`: past its limits, `overloaded`.
 */
export function createFileStamps(ctx: AppContext, deps: { storage: FileStorage; renderer: Pick<PageRenderer, 'stamp'> }) {
  const { storage } = deps;
  const db = ctx.database.db;
  const stamps = boundedStamps(deps.renderer);

  /** The project's file with every page rendered, or null (none, or failed); `page_not_ready` while it renders. */
  async function readyFile(appId: string, id: string): Promise<FileRow | null> {
    const file = await repo.find(db, appId, id);
    if (!file || file.status === 'failed') return null;
    if (file.status !== 'ready') throw failure('page_not_ready', `${file.rendered_pages} of ${file.page_count} pages are rendered`);
    return file;
  }

  /** The version's pages at the desktop width, each with the watermark, as JPEG; the next drawn while one is sent. */
  async function* stampedPages(
    version: FileVersion,
    count: number,
    mark: { text: string; stamp: (image: Buffer, mark: Stamp) => Promise<RenderedImage> },
  ): AsyncGenerator<JpegPage> {
    const stamp: Stamp = { text: mark.text, format: 'jpeg', quality: STAMPED_JPEG_QUALITY };
    const draw = async (n: number) => {
      const image = await storage.read(pageKey(version, n, 'desktop'));
      if (image === null) throw new Error(`page ${n} of the file is missing from storage`);
      return mark.stamp(image, stamp);
    };
    let next: Promise<RenderedImage> | null = draw(1);
    for (let n = 1; next !== null; n += 1) {
      const page: RenderedImage = await next;
      next = n < count ? draw(n + 1) : null;
      // Not waited for when the download stops early: its failure is then nobody's to report.
      next?.catch(() => {});
      yield page;
    }
  }

  return {
    /**
     * A rendered page's image with the watermark's text drawn in, as WebP. `page_not_ready` while the
     * page is still to come, `page_not_found` beyond the last page or when rendering failed.
     */
    async viewerStampedPage(appId: string, request: StampedPageRequest): Promise<StampedImage> {
      const { fileId: id, n, width, text } = request;
      const file = await repo.find(db, appId, id);
      if (!file || n < 1 || n > file.page_count || file.status === 'failed') throw failure('page_not_found');
      const row = await repo.page(db, appId, id, n);
      if (!row || row.content_id !== file.content_id) throw failure('page_not_ready', `Page ${n} is not rendered yet`);
      const image = await storage.read(pageKey({ appId, id, contentId: file.content_id }, n, width));
      if (image === null) throw failure('page_not_ready', `Page ${n} is not rendered yet`);
      const stamped = await stamps.image(appId, image, { text, format: 'webp', quality: STAMPED_WEBP_QUALITY });
      return { contentType: 'image/webp', bytes: stamped.bytes };
    },

    /**
     * The current version as a PDF of its page images (desktop width), each with the watermark's text,
     * written page by page as it is read: null when the project has no such file (or it failed),
     * `page_not_ready` while it renders, `overloaded` when too many downloads are under way.
     */
    async viewerStampedPdf(appId: string, id: string, text: string): Promise<{ name: string; body: Readable } | null> {
      const file = await readyFile(appId, id);
      if (file === null) return null;
      const place = stamps.download(appId);
      const version = { appId, id, contentId: file.content_id };
      const pages = stampedPages(version, file.page_count, { text, stamp: place.draw });
      const body = Readable.from(pdfOfImages(file.page_count, pages), { objectMode: false });
      body.once('close', place.release);
      return { name: `${file.name.replace(/\.(pdf|png|jpe?g)$/i, '')}.pdf`, body };
    },
  };
}

export type FileStamps = ReturnType<typeof createFileStamps>;
