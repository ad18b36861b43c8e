import fsp from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../../context.ts';
import { failure, forbidden } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { type FileKind, MIME_TYPES, imageSizeOfFile, sniffFileKind } from '../../lib/file-kinds.ts';
import type { FileStorage } from '../../lib/file-storage.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { type OpenDocument, type PageRenderer, RenderError } from '../../lib/page-renderer.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import { type FileResponse, type FileRow, toFile } from './mapper.ts';
import {
  EXTENSIONS,
  FILE_FIELD,
  INCOMING_MAX_AGE_MS,
  MAX_IMAGE_PIXELS,
  type IncomingFile,
  type PageImage,
  type PageRequest,
  type UploadsUnderWay,
  contentPrefix,
  fileNotFound,
  originalKey,
} from './model.ts';
import { filesRepository as repo } from './repository.ts';
import type { FileViewer } from './viewer.service.ts';

const invalidFile = (detail: string) => failure('invalid_file', detail);

/** What a checked upload is: its kind, pages and the name it is shown by. */
interface Accepted {
  kind: FileKind;
  pageCount: number;
  size: number;
  name: string;
}

/** An upload as a route hands it over: the received file (if any) and the name asked for. */
export interface UploadInput {
  incoming: IncomingFile | undefined;
  name?: string | undefined;
}

/** What can be refused before an upload's body is read (`contentLength` from its header; `overhead` for the multipart framing). */
export interface UploadCheck {
  /** The file a new version is for; none for a new file. */
  fileId?: string | undefined;
  contentLength: number | undefined;
  overhead: number;
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

/** A new version is the uploader's, a Master's or an Admin's to give. */
function mayReplace(actor: Actor, file: FileRow): void {
  if (!actor.isManager && file.created_by !== actor.userId)
    throw forbidden('Only the uploader of a file, a Master or an Admin may upload a new version');
}

/**
 * Files as members upload and read them (docs/files.md): a PDF, or a PNG or JPEG as a one-page
 * file; new versions; the files and their page images. Any member of the project uploads and reads
 * (the auth hook resolved the actor); a new version is its uploader's, a Master's or an Admin's to
 * give. A stored upload is handed to the rendering job (`rendered`), which draws its pages after the answer.
 */
export function createFileUploads(
  ctx: AppContext,
  deps: {
    storage: FileStorage;
    audit: AuditRecorder;
    renderer: PageRenderer;
    uploading: UploadsUnderWay;
    viewer: FileViewer;
    /** New work for the rendering job. */
    rendered: () => void;
  },
) {
  const { storage, audit, renderer, uploading, viewer } = deps;
  const db = ctx.database.db;
  const { clock, logger } = ctx;
  const limits = ctx.config.files;
  const tooLarge = () => invalidFile(`The file is larger than ${limits.maxBytes} bytes`);

  /** Refuses a file that is missing, empty, too large, or not a PDF, PNG or JPEG by its bytes, or an image with too many pixels. */
  async function sniff(file: IncomingFile | undefined): Promise<FileKind> {
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
    return kind;
  }

  /** Checks an upload: present, within the limits, a PDF, PNG or JPEG by its bytes, readable, not encrypted. */
  async function accept(appId: string, upload: UploadInput): Promise<Accepted> {
    const kind = await sniff(upload.incoming);
    const file = upload.incoming as IncomingFile;
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
    return { kind, pageCount: doc.pageCount, size: file.size, name: displayName(upload.name, file.filename, kind) };
  }

  /** The project's file, or file_not_found. */
  async function fileOf(appId: string, id: string): Promise<FileRow> {
    const row = await repo.find(db, appId, id);
    if (!row) throw fileNotFound();
    return row;
  }

  /** Runs an upload's work counted as under way for its project (the renderer lets it in), and removes the received file after. */
  async function underWay<T>(appId: string, upload: UploadInput, work: () => Promise<T>): Promise<T> {
    const uploaded = uploading.started(appId);
    try {
      return await work();
    } finally {
      uploaded();
      if (upload.incoming !== undefined) await fsp.rm(upload.incoming.path, { force: true });
    }
  }

  /** Stores an accepted upload as a new file with its audit record; answers its row. */
  async function storeNew(actor: Actor, upload: UploadInput, accepted: Accepted): Promise<FileRow> {
    const appId = actor.app.id;
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
      created_by: actor.userId,
      created_at: now,
      updated_at: now,
    };
    const version = { appId, id: row.id, contentId: row.content_id };
    await storage.putFile(originalKey(version, accepted.kind), (upload.incoming as IncomingFile).path);
    try {
      await db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        const detail = { name: row.name, size: row.size, pageCount: row.page_count };
        await audit(trx, { appId, actorId: actor.userId, action: 'file.upload', targetType: 'file', targetId: row.id, detail });
      });
    } catch (err) {
      await storage.removePrefix(contentPrefix(version));
      throw err;
    }
    return row;
  }

  /**
   * Makes the stored content of `version` the file's current one, with its audit record; answers the
   * row it replaced. Two new versions at once: the second sees the first's content (the update names
   * the content it replaces) and replaces that, so neither version is left behind in storage.
   */
  async function makeCurrent(actor: Actor, version: { id: string; contentId: string }, accepted: Accepted): Promise<FileRow> {
    const appId = actor.app.id;
    const { id, contentId } = version;
    const content = {
      name: accepted.name,
      size: accepted.size,
      mime_type: MIME_TYPES[accepted.kind],
      page_count: accepted.pageCount,
      content_id: contentId,
      updated_at: clock.now(),
    };
    for (let attempt = 1; ; attempt += 1) {
      const previous = await db.transaction().execute(async (trx) => {
        const current = await repo.find(trx, appId, id);
        if (!current) throw fileNotFound();
        if (!(await repo.replaceContent(trx, appId, id, current.content_id, content))) return null;
        await repo.deletePages(trx, appId, id);
        const detail = { name: accepted.name, size: accepted.size, pageCount: accepted.pageCount, version: current.version + 1 };
        await audit(trx, { appId, actorId: actor.userId, action: 'file.replace', targetType: 'file', targetId: id, detail });
        return current;
      });
      if (previous !== null) return previous;
      if (attempt >= 5) throw new Error('the file kept changing while its new version was stored');
    }
  }

  return {
    /** Where uploads land before they are checked, and how large they may be (the upload routes' settings). */
    upload: { field: FILE_FIELD, dir: storage.incomingDir, maxBytes: limits.maxBytes },

    /**
     * What can be refused before an upload's body is read, beyond the membership the auth hook
     * checked: for a new version, the file and the caller's right to replace it; a body larger than
     * any file it may carry.
     */
    async checkUpload(actor: Actor, check: UploadCheck): Promise<void> {
      if (check.fileId !== undefined) mayReplace(actor, await fileOf(actor.app.id, check.fileId));
      if (check.contentLength !== undefined && check.contentLength > limits.maxBytes + check.overhead) throw tooLarge();
    },

    /** Stores a new file and starts rendering it; answers at once with the file `processing`. */
    create(actor: Actor, upload: UploadInput): Promise<FileResponse> {
      return underWay(actor.app.id, upload, async () => {
        const row = await storeNew(actor, upload, await accept(actor.app.id, upload));
        deps.rendered();
        return toFile(row, clock);
      });
    },

    /**
     * A new version of a file: the same id (links that show the file keep showing it), new content
     * rendered from its first page; the previous version's original and pages are removed.
     */
    replace(actor: Actor, input: UploadInput & { fileId: string }): Promise<FileResponse> {
      const appId = actor.app.id;
      const id = input.fileId;
      return underWay(appId, input, async () => {
        const before = await fileOf(appId, id);
        mayReplace(actor, before);
        const accepted = await accept(appId, {
          incoming: input.incoming,
          name: input.name ?? (input.incoming?.filename ? undefined : before.name),
        });
        const version = { appId, id, contentId: timeOrderedUuid() };
        await storage.putFile(originalKey(version, accepted.kind), (input.incoming as IncomingFile).path);
        let previous: FileRow;
        try {
          previous = await makeCurrent(actor, version, accepted);
        } catch (err) {
          await storage.removePrefix(contentPrefix(version));
          throw err;
        }
        // The answer is the new version as it was made current (its drawing starts after the answer is read).
        const answer = toFile(await fileOf(appId, id), clock);
        // The new version is current: the former one's content is gone for readers whatever happens
        // to its files, so a failure to remove them is logged, not answered.
        await storage
          .removePrefix(contentPrefix({ appId, id, contentId: previous.content_id }))
          .catch((err: unknown) => logger.warn({ err, fileId: id }, 'files: the former version could not be removed'));
        deps.rendered();
        return answer;
      });
    },

    async get(actor: Actor, fileId: string): Promise<FileResponse> {
      return toFile(await fileOf(actor.app.id, fileId), clock);
    },

    async list(actor: Actor, p: Page): Promise<FileResponse[]> {
      return (await repo.list(db, actor.app.id, p.offset, p.limit)).map((f) => toFile(f, clock));
    },

    /** A rendered page's image, as the viewer serves it (`page_not_ready`, `page_not_found`, 304 by the ETag). */
    page(actor: Actor, request: PageRequest): Promise<PageImage> {
      return viewer.viewerPage(actor.app.id, request);
    },

    /**
     * Removes uploads a crashed process left half-received (an hour old: another process may be
     * receiving one now). The server calls it at start.
     */
    async sweepIncoming(): Promise<void> {
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
    },
  };
}

export type FileUploads = ReturnType<typeof createFileUploads>;
