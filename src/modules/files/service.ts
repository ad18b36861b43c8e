import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure, forbidden } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { type FileKind, MIME_TYPES, imageSizeOfFile, sniffFileKind } from '../../lib/file-kinds.ts';
import type { FileStorage } from '../../lib/file-storage.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { type OpenDocument, PageRenderer, RenderError, type RenderedImage } from '../../lib/page-renderer.ts';
import type { AccessService, Membership } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import { type FilePageRow, type FileResponse, type FileRow, toFile } from './mapper.ts';
import { RenderShares } from './render-shares.ts';
import { filesRepository as repo } from './repository.ts';
import { workLoop } from '../../lib/work-loop.ts';

/** The two widths every page is rendered at, in pixels (docs/files.md). */
export const PAGE_WIDTHS = { desktop: 1600, phone: 750 } as const;
export type PageWidth = keyof typeof PAGE_WIDTHS;
/** An uploaded image may have at most this many pixels (checked from its header, before it is decoded). */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** Neither side of a rendered image exceeds this. */
export const MAX_IMAGE_SIDE = 4096;
/** The multipart field that carries the file. */
export const FILE_FIELD = 'file';

const WEBP_QUALITY = 0.8;
/**
 * A turn of the renderer (docs/files.md): the file being rendered gives way once its project has had
 * this much more renderer time than another project with work, between pages, or by having the page
 * being drawn stopped (once a page: then it is drawn to its end).
 */
const TURN_MS = 1500;
/** How often the file being rendered looks whether to give way. */
const TURN_CHECK_MS = 250;
/** A page drawn this long may be stopped for a project a turn behind (a shorter one is let finish: a new renderer costs more). */
const PAGE_GRACE_MS = 1000;
/** How long a file that gave way waits for other projects' uploads being checked to be stored, so they go next. */
const UPLOADS_WAIT_MS = 5000;
/** How often an idle renderer looks for files no process holds (another process's, or one left by a crash). */
const POLL_MS = 5000;
/** An incoming upload this old was left by a process that stopped while receiving it. */
const INCOMING_MAX_AGE_MS = 3600_000;
const EXTENSIONS: Record<FileKind, string> = { pdf: 'pdf', png: 'png', jpeg: 'jpg' };

/** The file being rendered: its project and version. */
interface Turn {
  appId: string;
  contentId: string;
  /** When it last looked whether to give way between pages. */
  checked: number;
}

/** A file an upload brought (src/http/upload.ts gives this shape): on local disk, or cut off for being too large. */
export interface IncomingFile {
  path: string;
  filename: string;
  size: number;
  tooLarge: boolean;
}

/** A page image to send, or that the client's copy (its ETag) is current. */
export type PageImage =
  { notModified: false; etag: string; contentType: string; size: number; body: Readable } | { notModified: true; etag: string };

const invalidFile = (detail: string) => failure('invalid_file', detail);
const fileNotFound = () => failure('file_not_found');

/** What the public viewer shows of a file: its pages and their sizes (a page not yet rendered is absent). */
export interface ViewerFile {
  id: string;
  name: string;
  mimeType: string;
  status: 'processing' | 'ready' | 'failed';
  pageCount: number;
  /** Names the current version (changes with a new version: a cache key). */
  version: string;
  pages: { n: number; desktop: { width: number; height: number }; phone: { width: number; height: number } }[];
}

/** What a checked upload is: its kind, pages and the name it is shown by. */
interface Accepted {
  kind: FileKind;
  pageCount: number;
  size: number;
  name: string;
}

/** The name a file is shown by: the one given, else the uploaded file's own, without any path or control characters. */
function displayName(given: string | undefined, filename: string, kind: FileKind): string {
  const raw = given?.trim() || filename.split(/[\\/]/).pop() || '';
  const clean = [...raw]
    .filter((c) => c >= ' ' && c !== '\u007f')
    .join('')
    .trim()
    .slice(0, 255);
  return clean === '' ? `Untitled.${EXTENSIONS[kind]}` : clean;
}

const contentPrefix = (appId: string, fileId: string, contentId: string) => `${appId}/${fileId}/${contentId}`;
const originalKey = (appId: string, fileId: string, contentId: string, kind: FileKind) =>
  `${contentPrefix(appId, fileId, contentId)}/original.${EXTENSIONS[kind]}`;
const pageKey = (appId: string, fileId: string, contentId: string, page: number, width: PageWidth) =>
  `${contentPrefix(appId, fileId, contentId)}/pages/${page}-${width}.webp`;
const kindOfMime = (mime: string): FileKind => (mime === MIME_TYPES.png ? 'png' : mime === MIME_TYPES.jpeg ? 'jpeg' : 'pdf');

/**
 * Files: upload (a PDF, or a PNG or JPEG as a one-page file), new versions, reads, and their
 * rendering into page images, which goes on after the upload is answered (docs/files.md,
 * ADR 0019). Any member of the project uploads and reads; a new version is its uploader's, a
 * Master's or an Admin's to give.
 */
export function createFilesService(ctx: AppContext, access: AccessService, storage: FileStorage, audit: AuditRecorder) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger } = ctx;
  const limits = ctx.config.files;
  const leaseMs = Math.max(60_000, 3 * limits.pageTimeoutMs);
  const renderer = new PageRenderer({
    timeoutMs: limits.pageTimeoutMs,
    maxImagePixels: MAX_IMAGE_PIXELS,
    maxSide: MAX_IMAGE_SIDE,
    quality: WEBP_QUALITY,
    fontDir: limits.fontDir,
    memoryMb: limits.renderMemoryMb,
  });
  const widths = [PAGE_WIDTHS.desktop, PAGE_WIDTHS.phone];

  const tooLarge = () => invalidFile(`The file is larger than ${limits.maxBytes} bytes`);

  /** Checks an upload: present, within the limits, a PDF, PNG or JPEG by its bytes, readable, not encrypted. */
  async function accept(appId: string, file: IncomingFile | undefined, name: string | undefined): Promise<Accepted> {
    if (file === undefined) throw invalidFile(`Send the file as the multipart/form-data field \`${FILE_FIELD}\``);
    if (file.tooLarge) throw tooLarge();
    if (file.size === 0) throw invalidFile('The file is empty');
    const kind = await sniffFileKind(file.path);
    if (kind === null) throw invalidFile('The file is not a PDF, PNG or JPEG (judged by its content, not its name)');
    if (kind !== 'pdf') {
      const size = await imageSizeOfFile(file.path, kind);
      if (size === null || size.width === 0 || size.height === 0) throw invalidFile('The image is corrupt: its size cannot be read');
      if (size.width * size.height > MAX_IMAGE_PIXELS) {
        throw invalidFile(`The image has ${size.width} × ${size.height} pixels; at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`);
      }
    }
    let doc: OpenDocument;
    try {
      doc = await renderer.open({ path: file.path }, kind === 'pdf' ? 'pdf' : 'image', { owner: appId });
    } catch (err) {
      if (!(err instanceof RenderError) || err.kind === 'closed') throw err;
      if (err.kind === 'password') throw invalidFile('The PDF is encrypted: it needs a password to open');
      if (err.kind === 'timeout') throw invalidFile(`The file could not be opened within ${limits.pageTimeoutMs} ms`);
      if (err.kind === 'crashed' || err.kind === 'memory') throw invalidFile('The file could not be opened: it needs too much memory');
      throw invalidFile(`The file is corrupt: ${err.message}`);
    }
    await renderer.release(doc);
    if (doc.encrypted) throw invalidFile('The PDF is encrypted (its permissions restrict it); upload it without encryption');
    if (doc.pageCount < 1) throw invalidFile('The PDF has no pages');
    if (doc.pageCount > limits.maxPages) throw invalidFile(`The PDF has ${doc.pageCount} pages; at most ${limits.maxPages}`);
    return { kind, pageCount: doc.pageCount, size: file.size, name: displayName(name, file.filename, kind) };
  }

  // ---- Rendering: one file at a time, page after page, on the renderer's thread. ----

  const worker = workLoop<FileRow>({
    pollMs: POLL_MS,
    next: () => claimNext(),
    work: (file) => renderFile(file),
    lookFailed: (err) => logger.warn({ err }, 'files: could not look for files to render; will retry'),
  });
  /** Starts the rendering loop if it is not running, and has it look for work now. */
  const poke = () => worker.poke();

  /** Each project's share of the renderer: the one that has had least renderer time goes next. */
  const shares = new RenderShares(TURN_MS);

  /**
   * The next file to render, taken: projects share the renderer, so one project's backlog never
   * holds another's file behind it. The project with work that has had least renderer time in this
   * process goes next (a project new to it first), with its oldest waiting file.
   */
  async function claimNext(): Promise<FileRow | null> {
    const now = clock.now();
    const projects = await repo.waitingProjects(db, now);
    shares.present([...projects.map((p) => p.appId), ...uploading.keys()]);
    for (const { appId } of shares.order(projects)) {
      for (const c of await repo.waiting(db, appId, now, 5)) {
        if (!(await repo.claim(db, c.app_id, c.id, c.content_id, now, now + leaseMs))) continue;
        const file = await repo.find(db, c.app_id, c.id);
        // A new version in between: it is waiting (with no lease) for the next look.
        if (file?.content_id !== c.content_id) continue;
        shares.started(appId);
        return file;
      }
    }
    return null;
  }

  /** Uploads of each project this process is checking and storing (they come before its file is waiting). */
  const uploading = new Map<string, number>();
  const othersUploading = (appId: string) => [...uploading].some(([other, n]) => other !== appId && n > 0);
  /** Counts an upload of the project as under way; call what it answers once the upload is stored or refused. */
  function uploadStarted(appId: string): () => void {
    uploading.set(appId, (uploading.get(appId) ?? 0) + 1);
    return () => {
      const n = (uploading.get(appId) ?? 1) - 1;
      if (n > 0) uploading.set(appId, n);
      else uploading.delete(appId);
    };
  }

  /** Whether another project with work (a file waiting, an upload being checked here) is a turn behind `appId`'s. */
  async function shouldGiveWay(appId: string): Promise<boolean> {
    const waiting = await repo.waitingProjects(db, clock.now());
    return shares.shouldGiveWay(appId, [...waiting.map((p) => p.appId), ...uploading.keys()]);
  }

  /** The page of each version that was stopped for another project: it is drawn to its end next time. */
  const stoppedPages = new Map<string, number>();

  /**
   * Page `n`'s images once drawn. A page drawn longer than PAGE_GRACE_MS while another project is a
   * turn behind is stopped (unless this page was stopped before), and this throws a RenderError
   * `interrupted`.
   */
  async function pageInTurn(turn: Turn, n: number, pending: Promise<RenderedImage[]>, doc: () => OpenDocument): Promise<RenderedImage[]> {
    const since = clock.now();
    let done = false;
    const page = pending.finally(() => (done = true));
    const drawn = page.then(
      () => {},
      () => {},
    );
    while (!done) {
      let cancel = () => {};
      await Promise.race([drawn, new Promise<void>((r) => (cancel = clock.after(TURN_CHECK_MS, r)))]);
      cancel();
      if (done || stoppedPages.get(turn.contentId) === n || clock.now() - since < PAGE_GRACE_MS) continue;
      if (await shouldGiveWay(turn.appId)) {
        stoppedPages.set(turn.contentId, n);
        renderer.interrupt(doc());
      }
    }
    return page;
  }

  /** A file that gave way lets other projects' uploads under way be stored first, so they are taken next. */
  async function letUploadsIn(appId: string): Promise<void> {
    const until = clock.now() + UPLOADS_WAIT_MS;
    while (othersUploading(appId) && clock.now() < until) await new Promise<void>((r) => clock.after(50, r));
  }

  async function renderFile(file: FileRow): Promise<void> {
    const { app_id: appId, id, content_id: contentId } = file;
    const started = clock.now();
    let doc: OpenDocument | null = null;
    try {
      const kind = kindOfMime(file.mime_type);
      const data = await storage.read(originalKey(appId, id, contentId, kind));
      if (data === null) throw new RenderError('failed', 'the stored file is missing');
      const open = () => renderer.open({ data }, kind === 'pdf' ? 'pdf' : 'image');
      doc = await open();
      const draw = async (n: number) => {
        try {
          return await renderer.render(doc as OpenDocument, n, widths);
        } catch (err) {
          // Another file's check stopped the renderer this document was open on: open it again.
          if (!(err instanceof RenderError) || err.kind !== 'lost') throw err;
          doc = await open();
          return renderer.render(doc, n, widths);
        }
      };
      // The renderer draws the next page while this one's images are stored.
      let next = file.rendered_pages < file.page_count ? draw(file.rendered_pages + 1) : null;
      const turn: Turn = { appId, contentId, checked: clock.now() };
      for (let n = file.rendered_pages + 1; n <= file.page_count && next !== null; n += 1) {
        const images = await pageInTurn(turn, n, next, () => doc as OpenDocument);
        // Between two pages (looked at every TURN_CHECK_MS), the file gives way to a project a turn behind.
        const look = n < file.page_count && clock.now() - turn.checked >= TURN_CHECK_MS;
        if (look) turn.checked = clock.now();
        const givingWay = look && (await shouldGiveWay(appId));
        next = n < file.page_count && !givingWay ? draw(n + 1) : null;
        // Not waited for when this file stops early; its failure is this loop's to report, not an unhandled one.
        next?.catch(() => {});
        const [desktop, phone] = images;
        if (!desktop || !phone) throw new RenderError('failed', 'the renderer returned no image');
        await storage.put(pageKey(appId, id, contentId, n, 'desktop'), desktop.bytes);
        await storage.put(pageKey(appId, id, contentId, n, 'phone'), phone.bytes);
        const page: FilePageRow = {
          app_id: appId,
          file_id: id,
          page: n,
          content_id: contentId,
          desktop_width: desktop.width,
          desktop_height: desktop.height,
          desktop_bytes: desktop.bytes.byteLength,
          phone_width: phone.width,
          phone_height: phone.height,
          phone_bytes: phone.bytes.byteLength,
          created_at: clock.now(),
        };
        const kept = await db.transaction().execute((trx) => repo.pageRendered(trx, page, clock.now() + leaseMs));
        if (!kept) {
          // A new version replaced this one while it was being rendered: its pages are not wanted.
          // (Else another process holds the file now, having found this one's lease run out: it goes on.)
          const now = await repo.find(db, appId, id);
          if (now?.content_id !== contentId) await storage.removePrefix(contentPrefix(appId, id, contentId));
          return;
        }
        if (givingWay) {
          await giveWay(appId, id, contentId);
          return;
        }
      }
      stoppedPages.delete(contentId);
      await repo.finish(db, appId, id, contentId, { status: 'ready', failure: null }, clock.now());
      logger.info({ appId, fileId: id, pages: file.page_count, ms: clock.now() - started }, 'files: rendered');
    } catch (err) {
      if (err instanceof RenderError && err.kind === 'closed') {
        // The server is stopping: give the file up, for the next server to take up at once.
        await repo.release(db, appId, id, contentId).catch((e: unknown) => logger.warn({ err: e }, 'files: could not give a file up'));
        return;
      }
      if (err instanceof RenderError && err.kind === 'interrupted') {
        await giveWay(appId, id, contentId);
        return;
      }
      stoppedPages.delete(contentId);
      const reason = failureReason(err);
      logger.warn({ err, appId, fileId: id }, 'files: rendering failed');
      await failRendering(appId, id, contentId, reason);
    } finally {
      shares.ended();
      if (doc !== null) await renderer.release(doc);
    }
  }

  /** Gives the file up for now, to be taken up again after other projects' work, from the page after the last rendered. */
  async function giveWay(appId: string, id: string, contentId: string): Promise<void> {
    shares.ended();
    await letUploadsIn(appId);
    await repo.release(db, appId, id, contentId).catch((e: unknown) => logger.warn({ err: e }, 'files: could not give a file up'));
  }

  /** Why a file could not be rendered, as its `failure` says (docs/files.md). */
  function failureReason(err: unknown): string {
    if (!(err instanceof RenderError)) return 'It could not be rendered';
    if (err.kind === 'timeout') return `A page took longer than ${limits.pageTimeoutMs} ms to render (${err.message})`;
    if (err.kind === 'memory') return `It needs more memory than the renderer may use (${limits.renderMemoryMb} MB): ${err.message}`;
    if (err.kind === 'crashed') return `The renderer stopped while rendering it (${err.message})`;
    return `It could not be rendered: ${err.message}`;
  }

  /** Marks the version failed and removes its pages (the original is kept). */
  async function failRendering(appId: string, id: string, contentId: string, reason: string): Promise<void> {
    try {
      const marked = await db.transaction().execute(async (trx) => {
        if (!(await repo.finish(trx, appId, id, contentId, { status: 'failed', failure: reason }, clock.now()))) return false;
        await repo.deletePages(trx, appId, id);
        return true;
      });
      if (marked) await storage.removePrefix(`${contentPrefix(appId, id, contentId)}/pages`);
    } catch (err) {
      logger.error({ err, appId, fileId: id }, 'files: could not record a failed rendering');
    }
  }

  async function sweepIncoming(): Promise<void> {
    try {
      const old = clock.now() - INCOMING_MAX_AGE_MS;
      for (const name of await fsp.readdir(storage.incomingDir).catch(() => [] as string[])) {
        const file = path.join(storage.incomingDir, name);
        const stat = await fsp.stat(file).catch(() => null);
        if (stat !== null && stat.isFile() && stat.mtimeMs < old) await fsp.rm(file, { force: true });
      }
    } catch (err) {
      logger.warn({ err }, 'files: could not clear old incoming uploads');
    }
  }

  /** A new version is the uploader's, a Master's or an Admin's to give. */
  function mayReplace(m: Membership, file: FileRow): void {
    if (!m.isManager && file.created_by !== m.userId)
      throw forbidden('Only the uploader of a file, a Master or an Admin may upload a new version');
  }

  /** The caller's file of the project, or file_not_found. */
  async function fileOf(appId: string, id: string): Promise<FileRow> {
    const row = await repo.find(db, appId, id);
    if (!row) throw fileNotFound();
    return row;
  }

  /**
   * A rendered page's image. `page_not_ready` while the page is still to come, `page_not_found`
   * beyond the last page or when rendering failed. `ifNoneMatch`: the ETag of the client's copy.
   */
  async function pageImage(appId: string, id: string, n: number, width: PageWidth, ifNoneMatch?: string): Promise<PageImage> {
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
    const opened = await storage.open(pageKey(appId, id, file.content_id, n, width));
    if (!opened) throw failure('page_not_ready', `Page ${n} is not rendered yet`);
    return { notModified: false, etag, contentType: 'image/webp', size: opened.size, body: opened.stream };
  }

  return {
    /** Where uploads land before they are checked, and how large they may be (the upload routes' settings). */
    upload: { field: FILE_FIELD, dir: storage.incomingDir, maxBytes: limits.maxBytes },

    /**
     * What can be refused before an upload's body is read: the caller's membership (and for a new
     * version, the file and the caller's right to replace it), and a body larger than any file it
     * may carry (`contentLength` from its header; `overhead` for the multipart framing).
     */
    async checkUpload(appId: string, callerId: number, fileId: string | undefined, contentLength: number | undefined, overhead: number) {
      const m = await access.membership(appId, callerId);
      if (fileId !== undefined) mayReplace(m, await fileOf(appId, fileId));
      if (contentLength !== undefined && contentLength > limits.maxBytes + overhead) throw tooLarge();
    },

    /** Stores a new file and starts rendering it; answers at once with the file `processing`. */
    async create(appId: string, callerId: number, incoming: IncomingFile | undefined, name?: string): Promise<FileResponse> {
      const uploaded = uploadStarted(appId);
      try {
        await access.membership(appId, callerId);
        const accepted = await accept(appId, incoming, name);
        const now = clock.now();
        const row: FileRow = {
          id: timeOrderedUuid(),
          app_id: appId,
          name: accepted.name,
          size: accepted.size,
          mime_type: MIME_TYPES[accepted.kind],
          page_count: accepted.pageCount,
          status: 'processing',
          version: 1,
          content_id: timeOrderedUuid(),
          rendered_pages: 0,
          failure: null,
          lease_until: null,
          created_by: callerId,
          created_at: now,
          updated_at: now,
        };
        await storage.putFile(originalKey(appId, row.id, row.content_id, accepted.kind), (incoming as IncomingFile).path);
        try {
          await db.transaction().execute(async (trx) => {
            await repo.insert(trx, row);
            await audit(trx, {
              appId,
              actorId: callerId,
              action: 'file.upload',
              targetType: 'file',
              targetId: row.id,
              detail: { name: row.name, size: row.size, pageCount: row.page_count },
            });
          });
        } catch (err) {
          await storage.removePrefix(contentPrefix(appId, row.id, row.content_id));
          throw err;
        }
        poke();
        return toFile(row, clock);
      } finally {
        uploaded();
        if (incoming !== undefined) await fsp.rm(incoming.path, { force: true });
      }
    },

    /**
     * A new version of a file: the same id (links that show the file keep showing it), new content
     * rendered from its first page; the previous version's original and pages are removed.
     */
    async replace(appId: string, callerId: number, id: string, incoming: IncomingFile | undefined, name?: string): Promise<FileResponse> {
      const uploaded = uploadStarted(appId);
      try {
        const m = await access.membership(appId, callerId);
        const before = await fileOf(appId, id);
        mayReplace(m, before);
        const accepted = await accept(appId, incoming, name ?? (incoming?.filename ? undefined : before.name));
        const contentId = timeOrderedUuid();
        const now = clock.now();
        await storage.putFile(originalKey(appId, id, contentId, accepted.kind), (incoming as IncomingFile).path);
        const content = {
          name: accepted.name,
          size: accepted.size,
          mime_type: MIME_TYPES[accepted.kind],
          page_count: accepted.pageCount,
          content_id: contentId,
          updated_at: now,
        };
        let previous: FileRow | null = null;
        try {
          // Two new versions at once: the second sees the first's content (the update names the
          // content it replaces) and replaces that, so neither version is left behind in storage.
          for (let attempt = 1; previous === null; attempt += 1) {
            previous = await db.transaction().execute(async (trx) => {
              const current = await repo.find(trx, appId, id);
              if (!current) throw fileNotFound();
              if (!(await repo.replaceContent(trx, appId, id, current.content_id, content))) return null;
              await repo.deletePages(trx, appId, id);
              await audit(trx, {
                appId,
                actorId: callerId,
                action: 'file.replace',
                targetType: 'file',
                targetId: id,
                detail: { name: accepted.name, size: accepted.size, pageCount: accepted.pageCount, version: current.version + 1 },
              });
              return current;
            });
            if (previous === null && attempt >= 5) throw new Error('the file kept changing while its new version was stored');
          }
        } catch (err) {
          await storage.removePrefix(contentPrefix(appId, id, contentId));
          throw err;
        }
        await storage.removePrefix(contentPrefix(appId, id, previous.content_id));
        poke();
        return toFile(await fileOf(appId, id), clock);
      } finally {
        uploaded();
        if (incoming !== undefined) await fsp.rm(incoming.path, { force: true });
      }
    },

    async get(appId: string, callerId: number, id: string): Promise<FileResponse> {
      await access.membership(appId, callerId);
      return toFile(await fileOf(appId, id), clock);
    },

    async list(appId: string, callerId: number, p: Page): Promise<FileResponse[]> {
      await access.membership(appId, callerId);
      return (await repo.list(db, appId, p.offset, p.limit)).map((f) => toFile(f, clock));
    },

    /**
     * A rendered page's image. `page_not_ready` while the page is still to come, `page_not_found`
     * beyond the last page or when rendering failed. `ifNoneMatch`: the ETag of the client's copy.
     */
    async page(appId: string, callerId: number, id: string, n: number, width: PageWidth, ifNoneMatch?: string): Promise<PageImage> {
      await access.membership(appId, callerId);
      return pageImage(appId, id, n, width, ifNoneMatch);
    },

    /**
     * What the public viewer shows of a file a link shares (its caller, the links module, has checked
     * that the link is open to the visitor; no membership is asked): the current version's name,
     * type, page count and the sizes of its rendered pages. Null when the project has no such file.
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
        pages: pages.map((p) => ({
          n: p.page,
          desktop: { width: p.desktop_width, height: p.desktop_height },
          phone: { width: p.phone_width, height: p.phone_height },
        })),
      };
    },

    /** A page image for the public viewer (as `page`, without a membership: the links module checked the link). */
    viewerPage(appId: string, id: string, n: number, width: PageWidth, ifNoneMatch?: string): Promise<PageImage> {
      return pageImage(appId, id, n, width, ifNoneMatch);
    },

    /** The current version's original, for a link that allows its download; null when there is none. */
    async viewerOriginal(appId: string, id: string): Promise<{ name: string; contentType: string; size: number; body: Readable } | null> {
      const file = await repo.find(db, appId, id);
      if (!file) return null;
      const opened = await storage.open(originalKey(appId, id, file.content_id, kindOfMime(file.mime_type)));
      if (!opened) return null;
      return { name: file.name, contentType: file.mime_type, size: opened.size, body: opened.stream };
    },

    /**
     * Starts rendering: files left processing (by a stopped or crashed process) are taken up again.
     * Uploads a crashed process left half-received are removed (an hour old: another process may
     * be receiving one now).
     */
    start(): void {
      poke();
      void sweepIncoming();
    },

    /** Stops rendering; a file being rendered is given up, for the next process to take up where it stopped. */
    async close(): Promise<void> {
      const stopped = worker.stop();
      await renderer.close();
      await stopped;
    },
  };
}

export type FilesService = ReturnType<typeof createFilesService>;
