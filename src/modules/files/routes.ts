import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { FailureEnvelope, businessResponses, ok } from '../../http/envelope.ts';
import { PagingQuery, page } from '../../http/paging.ts';
import { MULTIPART_OVERHEAD, receivedFile, uploadRoute } from '../../http/upload.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { File, FileParams, PageParams, PageQuery, UploadBody } from './schemas.ts';
import type { FileUploads, FilesServices } from './service.ts';

const tags = ['Files'];

const UPLOAD_DESCRIPTION =
  'multipart/form-data with the file in the field `file` (a PDF, or a PNG or JPEG shown as one page; the type is read from ' +
  'the content) and optionally `name`. Answers at once with the file `processing`; its pages are rendered after ' +
  '(`renderedPages` counts them), then it is `ready` or `failed`. A missing, too large, unsupported, encrypted or unreadable ' +
  'file, or one with too many pages or pixels: {status:0, code:"invalid_file", msg}, and nothing is stored.';

const uploadResponses = { ...businessResponses(File), 408: FailureEnvelope, 411: FailureEnvelope };

/** Uploads: a new file, a new version of one. */
function uploadRoutes(fastify: FastifyInstance, files: FileUploads): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Besides the file, only its name (up to 1000 characters).
  const upload = uploadRoute(files.upload, { fields: 4, fieldBytes: 4 * 1024 });

  /** Refused before the body is read: a caller who may not upload here, a body larger than any file it may bring. */
  const checkUpload = async (request: FastifyRequest) => {
    const { appId, fileId } = request.params as { appId: string; fileId?: string };
    // Ids no project or file can have are left to validation, which refuses them without asking the database.
    if ([appId, fileId ?? ''].some((id) => id.length > 64 || id.includes('\u0000'))) return;
    const length = request.headers['content-length'];
    const contentLength = length === undefined ? undefined : Number(length);
    await files.checkUpload(actorOf(request), { fileId, contentLength, overhead: MULTIPART_OVERHEAD });
  };

  app.post(
    '/api/v1.7/app/:appId/files',
    {
      ...upload,
      onRequest: checkUpload,
      schema: {
        tags,
        summary: 'Upload a file (any member): a PDF, or a PNG or JPEG as a one-page file',
        description: UPLOAD_DESCRIPTION,
        consumes: ['multipart/form-data'],
        params: AppIdParams,
        body: UploadBody,
        response: uploadResponses,
      },
    },
    async (request) => ok(await files.create(actorOf(request), { incoming: receivedFile(request), name: request.body.name })),
  );

  app.post(
    '/api/v1.7/app/:appId/file/:fileId',
    {
      ...upload,
      onRequest: checkUpload,
      schema: {
        tags,
        summary: 'Upload a new version of a file (its uploader, Master, Admin): same id, so links showing it keep showing it',
        description: `${UPLOAD_DESCRIPTION} The previous version's pages are replaced by the new version's as they are rendered.`,
        consumes: ['multipart/form-data'],
        params: FileParams,
        body: UploadBody,
        response: uploadResponses,
      },
    },
    async (request) =>
      ok(
        await files.replace(actorOf(request), { fileId: request.params.fileId, incoming: receivedFile(request), name: request.body.name }),
      ),
  );
}

/** Reads: a file, the project's files, a rendered page's image. */
function readRoutes(fastify: FastifyInstance, files: FileUploads): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1.7/app/:appId/file/:fileId',
    { schema: { tags, summary: 'A file (any member)', params: FileParams, response: businessResponses(File) } },
    async (request) => ok(await files.get(actorOf(request), request.params.fileId)),
  );

  app.get(
    '/api/v1.7/app/:appId/files',
    {
      schema: {
        tags,
        summary: "The project's files, newest first (any member)",
        params: AppIdParams,
        querystring: Type.Object({ ...PagingQuery }),
        response: businessResponses(Type.Array(File)),
      },
    },
    async (request) => ok(await files.list(actorOf(request), page(request.query))),
  );

  app.get(
    '/api/v1.7/app/:appId/file/:fileId/page/:n',
    {
      schema: {
        tags,
        summary: 'A rendered page as a WebP image (any member)',
        description:
          'The image bytes (Content-Type image/webp) with an ETag; If-None-Match with it answers 304. A page still to be ' +
          'rendered: {status:0, code:"page_not_ready"}; no such page, or rendering failed: page_not_found.',
        params: PageParams,
        querystring: PageQuery,
        produces: ['image/webp', 'application/json'],
        response: {
          200: { description: 'the page image, or a business failure in the envelope', ...Type.Unknown() },
          304: { description: 'the client has this image (If-None-Match)', type: 'null' },
          403: businessResponses(File)[403],
          429: businessResponses(File)[429],
        },
      },
    },
    async (request, reply) => {
      const { fileId, n } = request.params;
      const width = request.query.width ?? 'desktop';
      const image = await files.page(actorOf(request), { fileId, n, width, ifNoneMatch: request.headers['if-none-match'] });
      reply.header('ETag', image.etag).header('Cache-Control', 'private, no-cache');
      if (image.notModified) return reply.code(304).send();
      return reply.type(image.contentType).header('Content-Length', String(image.size)).send(image.body);
    },
  );
}

export async function filesRoutes(fastify: FastifyInstance, opts: { files: FilesServices }): Promise<void> {
  uploadRoutes(fastify, opts.files.uploads);
  readRoutes(fastify, opts.files.uploads);
}
