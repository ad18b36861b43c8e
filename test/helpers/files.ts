import fs from 'node:fs';
import path from 'node:path';
import { loadImage } from '@napi-rs/canvas';
import { createCanvas } from '@napi-rs/canvas';
import type { LightMyRequestResponse as Response } from 'fastify';
import type { TestServer } from './harness.ts';

const FIXTURES = new URL('../fixtures/files/', import.meta.url);

/** The bytes of test/fixtures/files/<name> (made by `npm run fixtures:files`). */
export function fixture(name: string): Buffer {
  return fs.readFileSync(new URL(name, FIXTURES));
}

/** The directory of the fixture fonts, for FILE_FONT_DIR. */
export const FIXTURE_FONTS = new URL('fonts/', FIXTURES).pathname;

export interface UploadPart {
  /** The multipart field (default `file`). */
  field?: string;
  filename: string;
  bytes: Buffer;
  contentType?: string;
}

/** A multipart/form-data body with the given file part and text fields. */
export function multipart(file: UploadPart | null, fields: Record<string, string> = {}): { payload: Buffer; contentType: string } {
  const boundary = `----rapport${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file !== null) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.filename}"\r\n` +
          `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs a file (to `/files`, or to `/file/{id}` for a new version) as multipart. */
export function upload(
  server: TestServer,
  appId: string,
  token: string,
  file: UploadPart | null,
  options: { fileId?: string; fields?: Record<string, string> } = {},
): Promise<Response> {
  const body = multipart(file, options.fields);
  const url = options.fileId === undefined ? `/api/v1.7/app/${appId}/files` : `/api/v1.7/app/${appId}/file/${options.fileId}`;
  return server.api.post(url, body.payload, { token, headers: { 'content-type': body.contentType } });
}

export interface FileData {
  id: string;
  appId: string;
  name: string;
  size: number;
  mimeType: string;
  pageCount: number;
  status: 'processing' | 'ready' | 'failed';
  renderedPages: number;
  version: number;
  failure: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Reads the file until it is no longer processing (or `timeoutMs` passes, which fails). */
export async function settled(server: TestServer, appId: string, token: string, id: string, timeoutMs = 60_000): Promise<FileData> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await server.api.get(`/api/v1.7/app/${appId}/file/${id}`, { token });
    const body = res.json() as { status: number; data: FileData };
    if (body.status !== 1) throw new Error(`reading file ${id}: ${res.body}`);
    if (body.data.status !== 'processing') return body.data;
    if (Date.now() > deadline) throw new Error(`file ${id} still processing after ${timeoutMs} ms: ${res.body}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A page image as served. */
export function pageImage(
  server: TestServer,
  appId: string,
  token: string,
  id: string,
  n: number,
  width?: 'phone' | 'desktop',
  headers = {},
) {
  return server.api.get(`/api/v1.7/app/${appId}/file/${id}/page/${n}`, { token, headers, ...(width ? { query: { width } } : {}) });
}

export interface Decoded {
  width: number;
  height: number;
  /** RGBA bytes. */
  pixels: Uint8ClampedArray;
}

/** Decodes an image (WebP, PNG, JPEG) to its pixels. */
export async function decode(bytes: Buffer): Promise<Decoded> {
  const image = await loadImage(bytes);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  return { width: image.width, height: image.height, pixels: ctx.getImageData(0, 0, image.width, image.height).data };
}

/** Pixels darker than mid-grey inside the rectangle (fractions of the image's width and height). */
export function darkPixels(image: Decoded, area = { x: 0, y: 0, w: 1, h: 1 }): number {
  let n = 0;
  const x0 = Math.floor(area.x * image.width);
  const x1 = Math.floor((area.x + area.w) * image.width);
  const y0 = Math.floor(area.y * image.height);
  const y1 = Math.floor((area.y + area.h) * image.height);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * image.width + x) * 4;
      const lum = 0.299 * (image.pixels[i] as number) + 0.587 * (image.pixels[i + 1] as number) + 0.114 * (image.pixels[i + 2] as number);
      if (lum < 128) n += 1;
    }
  }
  return n;
}

/** Pixels of two same-sized images that differ clearly (by more than 64 in any channel). */
export function differingPixels(a: Decoded, b: Decoded): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error('images of different sizes');
  let n = 0;
  for (let i = 0; i < a.pixels.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      if (Math.abs((a.pixels[i + c] as number) - (b.pixels[i + c] as number)) > 64) {
        n += 1;
        break;
      }
    }
  }
  return n;
}

/** Every regular file under DATA_DIR/files, relative to it. */
export function storedFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'files');
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}
