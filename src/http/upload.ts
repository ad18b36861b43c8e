import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes one file in a multipart body (see `uploadRoute`). */
    upload?: UploadSpec;
  }
}

export interface UploadSpec {
  /** The multipart field that carries the file. */
  field: string;
  /** The local directory the file is written to while the request lasts. */
  dir: string;
  /** Bytes past which the file is not kept: it is reported `tooLarge`. */
  maxBytes: number;
}

/** A file part as received: written to `path` (gone when `tooLarge`), with the name the client gave it. */
export interface ReceivedFile {
  path: string;
  filename: string;
  size: number;
  tooLarge: boolean;
}

/** Room for the multipart framing and the other fields around the file, beyond its own limit. */
export const MULTIPART_OVERHEAD = 64 * 1024;

/** The fields an upload route takes besides its file: how many, and the bytes of the longest. */
export interface UploadFields {
  fields: number;
  fieldBytes: number;
}

const received = new WeakMap<FastifyRequest, ReceivedFile>();

/**
 * Route options of a route that takes one file: the body limit is the file's limit plus the
 * multipart framing (src/http/body-limits.ts holds a multipart body to it by its Content-Length),
 * the parser takes one file and cuts it off, without failing the request, past `maxBytes`. The
 * other fields are few and short: a body of more is refused (413) as it is parsed, so that a body
 * as large as the file cannot be held in memory as text fields.
 */
export function uploadRoute(spec: UploadSpec, other: UploadFields) {
  return {
    bodyLimit: spec.maxBytes + MULTIPART_OVERHEAD,
    config: {
      upload: spec,
      multipartOptions: multipartLimits({ files: 1, fileSize: spec.maxBytes, ...other }),
    },
  };
}

/**
 * @fastify/multipart (busboy) limits for `fields` fields of up to `fieldBytes` bytes. Busboy cuts a
 * longer field short without failing, so it is let read one byte more and a field that reached it
 * is refused (params.ts: `refuseLongFields`) rather than taken cut short.
 */
export function multipartLimits(l: { files: number; fileSize?: number; fields: number; fieldBytes: number }) {
  const limits = { files: l.files, fields: l.fields, fieldSize: l.fieldBytes + 1, parts: l.fields + l.files };
  if (l.fileSize !== undefined) Object.assign(limits, { fileSize: l.fileSize });
  return { limits, throwFileSizeLimit: false } as { limits: { files: number } };
}

/** The longest field (bytes) a route's multipart body may have. */
export function multipartFieldBytes(request: FastifyRequest, fallback: number): number {
  return (request.routeOptions.config.multipartOptions?.limits?.fieldSize ?? fallback + 1) - 1;
}

/** The file the request brought in its route's upload field, once the body has been read; undefined when it brought none. */
export function receivedFile(request: FastifyRequest): ReceivedFile | undefined {
  return received.get(request);
}

/**
 * The multipart parser's handler of file parts (src/http/params.ts). Other routes take no file
 * (the parser refuses file parts there); on an upload route the file of its field is streamed to a
 * new file in the route's directory, and any other file part is read and dropped.
 */
export async function receiveFilePart(this: FastifyRequest, part: MultipartFile): Promise<void> {
  const spec = this.routeOptions.config.upload;
  if (spec === undefined || part.fieldname !== spec.field || received.has(this)) {
    for await (const _ of part.file);
    return;
  }
  await fsp.mkdir(spec.dir, { recursive: true });
  const file: ReceivedFile = { path: path.join(spec.dir, `${randomUUID()}.part`), filename: part.filename, size: 0, tooLarge: false };
  received.set(this, file);
  try {
    await pipeline(part.file, fs.createWriteStream(file.path, { flags: 'wx', mode: 0o600 }));
    file.tooLarge = part.file.truncated;
    file.size = (await fsp.stat(file.path)).size;
  } catch (err) {
    await fsp.rm(file.path, { force: true });
    throw err;
  }
  if (file.tooLarge) await fsp.rm(file.path, { force: true });
}

/** Whatever an upload left in its directory (its handler moves what it keeps) is removed once the request is answered. */
export function registerUploadCleanup(app: FastifyInstance): void {
  app.addHook('onResponse', async (request) => {
    const file = received.get(request);
    if (file !== undefined) await fsp.rm(file.path, { force: true });
  });
}
