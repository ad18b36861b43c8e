import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import { type FileKind, MIME_TYPES } from '../../lib/file-kinds.ts';
import { PageRenderer } from '../../lib/page-renderer.ts';

/** The two widths every page is rendered at, in pixels (docs/files.md). */
export const PAGE_WIDTHS = { desktop: 1600, phone: 750 } as const;
export type PageWidth = keyof typeof PAGE_WIDTHS;
/** An uploaded image may have at most this many pixels (checked from its header, before it is decoded). */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** Neither side of a rendered image exceeds this. */
export const MAX_IMAGE_SIDE = 4096;
/** The multipart field that carries the file. */
export const FILE_FIELD = 'file';
/** An incoming upload this old was left by a process that stopped while receiving it. */
export const INCOMING_MAX_AGE_MS = 3600_000;

/** WebP quality of the stored pages, 0–100 (as @napi-rs/canvas reads it): sharp text on slides. */
const WEBP_QUALITY = 80;
export const EXTENSIONS: Record<FileKind, string> = { pdf: 'pdf', png: 'png', jpeg: 'jpg' };

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

/** Which page image is asked for; `ifNoneMatch`: the ETag of the client's copy. */
export interface PageRequest {
  fileId: string;
  n: number;
  width: PageWidth;
  ifNoneMatch?: string | undefined;
}

/** What the public viewer shows of a file: its pages and their sizes (a page not yet rendered is absent). */
export interface ViewerFile {
  id: string;
  name: string;
  mimeType: string;
  status: 'processing' | 'ready' | 'failed';
  pageCount: number;
  /** Names the current version (changes with a new version: a cache key). */
  version: string;
  /** The current version's number: 1, and one more with each new version (what reading analytics count views under). */
  versionNumber: number;
  pages: { n: number; desktop: { width: number; height: number }; phone: { width: number; height: number } }[];
}

/** One version of a file: where its original and pages are stored. */
export interface FileVersion {
  appId: string;
  id: string;
  contentId: string;
}

export const fileNotFound = () => failure('file_not_found');

/** Storage keys (docs/files.md): each version under its own prefix, so it is removed by that prefix. */
export const contentPrefix = (v: FileVersion) => `${v.appId}/${v.id}/${v.contentId}`;
export const originalKey = (v: FileVersion, kind: FileKind) => `${contentPrefix(v)}/original.${EXTENSIONS[kind]}`;
export const pageKey = (v: FileVersion, page: number, width: PageWidth) => `${contentPrefix(v)}/pages/${page}-${width}.webp`;
export const kindOfMime = (mime: string): FileKind => (mime === MIME_TYPES.png ? 'png' : mime === MIME_TYPES.jpeg ? 'jpeg' : 'pdf');

/** The process's page renderer: its child opens uploads to check them and draws the pages of files. */
export function createPageRenderer(ctx: AppContext): PageRenderer {
  const limits = ctx.config.files;
  return new PageRenderer({
    timeoutMs: limits.pageTimeoutMs,
    maxImagePixels: MAX_IMAGE_PIXELS,
    maxSide: MAX_IMAGE_SIDE,
    quality: WEBP_QUALITY,
    fontDir: limits.fontDir,
    memoryMb: limits.renderMemoryMb,
  });
}

/**
 * Uploads of each project this process is checking and storing: they come before their file is
 * waiting, so the renderer counts them as work of their project.
 */
export class UploadsUnderWay {
  private readonly counts = new Map<string, number>();

  /** The projects with an upload under way. */
  projects(): string[] {
    return [...this.counts.keys()];
  }

  /** Whether a project other than `appId` has an upload under way. */
  othersThan(appId: string): boolean {
    return [...this.counts].some(([other, n]) => other !== appId && n > 0);
  }

  /** Counts an upload of the project as under way; call what it answers once the upload is stored or refused. */
  started(appId: string): () => void {
    this.counts.set(appId, (this.counts.get(appId) ?? 0) + 1);
    return () => {
      const n = (this.counts.get(appId) ?? 1) - 1;
      if (n > 0) this.counts.set(appId, n);
      else this.counts.delete(appId);
    };
  }
}
