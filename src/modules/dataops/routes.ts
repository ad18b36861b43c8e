import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { actorOf } from '../../http/auth.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { receivedFile, uploadRoute } from '../../http/upload.ts';
import { AppIdParams } from '../projects/schemas.ts';
import {
  ExportQuery,
  FormatQuery,
  ImportBody,
  ImportItemPath,
  ImportJob,
  ImportPath,
  ImportPreview,
  PreviewBody,
  RecentImportsQuery,
} from './schemas.ts';
import type { CustomerExport, DataOpsServices, ExportFormat, ImportJobs } from './service.ts';

const tags = ['Customer import and export'];

// Besides the file (streamed to disk, IMPORT_MAX_BYTES), an import takes a handful of options, the
// longest its column mapping (100,000 characters); a preview only the encoding. More is refused (413).
const IMPORT_FIELDS = { fields: 10, fieldBytes: 300 * 1024 };
const PREVIEW_FIELDS = { fields: 4, fieldBytes: 1024 };

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

const fileResponse = {
  200: { description: 'the file (CSV or XLSX), or a business failure in the envelope', ...Type.Unknown() },
  403: businessResponses(Type.Null())[403],
  429: businessResponses(Type.Null())[429],
};

function sendFile(reply: FastifyReply, body: Readable, format: ExportFormat, name: string) {
  return reply
    .type(CONTENT_TYPES[format])
    .header('Content-Disposition', `attachment; filename="${name}.${format}"`)
    .header('Cache-Control', 'no-store')
    .send(body);
}

/** Starting imports and following them: the job, a member's recent ones, the failed rows. */
function importRoutes(fastify: FastifyInstance, imports: ImportJobs): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1.7/app/:appId/member/:svcUserId/customer-imports',
    {
      ...uploadRoute(imports.upload, IMPORT_FIELDS),
      schema: {
        tags,
        summary: 'Import customers from a CSV or XLSX file, as a job (answers the job, queued)',
        description:
          "multipart/form-data with the file in the field `file`. Each row goes through the create endpoint's validation (createWay 7); " +
          'a body larger than IMPORT_MAX_BYTES is refused by its Content-Length before it is read (413). See docs/data-operations.md.',
        consumes: ['multipart/form-data'],
        params: ImportPath,
        body: ImportBody,
        response: businessResponses(ImportJob),
      },
    },
    async (request) =>
      ok(
        await imports.startImport(actorOf(request), {
          pathUserId: request.params.svcUserId,
          incoming: receivedFile(request),
          request: request.body,
        }),
      ),
  );

  app.get(
    '/api/v1.7/app/:appId/member/:svcUserId/customer-imports',
    {
      schema: {
        tags,
        summary: 'The imports a member started, newest first (the member, Master, Admin)',
        params: ImportPath,
        querystring: RecentImportsQuery,
        response: businessResponses(Type.Array(ImportJob)),
      },
    },
    async (request) =>
      ok(await imports.recentImports(actorOf(request), { pathUserId: request.params.svcUserId, limit: request.query.count ?? 20 })),
  );

  app.get(
    '/api/v1.7/app/:appId/member/:svcUserId/customer-import/:importId',
    {
      schema: {
        tags,
        summary: "An import's progress (its creator, Master, Admin)",
        params: ImportItemPath,
        response: businessResponses(ImportJob),
      },
    },
    async (request) =>
      ok(await imports.importJob(actorOf(request), { pathUserId: request.params.svcUserId, importId: request.params.importId })),
  );

  app.get(
    '/api/v1.7/app/:appId/member/:svcUserId/customer-import/:importId/problems.csv',
    {
      schema: {
        tags,
        summary: "The rows of an import that failed: the file's columns and a reason column (CSV, UTF-8 with BOM)",
        params: ImportItemPath,
        produces: ['text/csv', 'application/json'],
        response: fileResponse,
      },
    },
    async (request, reply) => {
      const { svcUserId: pathUserId, importId } = request.params;
      return sendFile(reply, await imports.problemsCsv(actorOf(request), { pathUserId, importId }), 'csv', `problems-${importId}`);
    },
  );
}

/** Before an import: the preview of a file, the template to fill in. */
function beforeImportRoutes(fastify: FastifyInstance, imports: ImportJobs): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1.7/app/:appId/customer-import/preview',
    {
      ...uploadRoute(imports.upload, PREVIEW_FIELDS),
      schema: {
        tags,
        summary:
          "What an import of a file would read: its header, each column's automatic mapping, its first rows (any member; nothing kept)",
        description:
          "multipart/form-data with the file in the field `file`; a CSV's first 64 KiB are enough. Refused as an import refuses the file (import_file_invalid).",
        consumes: ['multipart/form-data'],
        params: AppIdParams,
        body: PreviewBody,
        response: businessResponses(ImportPreview),
      },
    },
    async (request) =>
      ok(await imports.previewImport(actorOf(request), { incoming: receivedFile(request), encoding: request.body.encoding })),
  );

  app.get(
    '/api/v1.7/app/:appId/customer-import/template',
    {
      schema: {
        tags,
        summary: "A file to fill in for an import: the project's current attributes as the header (any member)",
        params: AppIdParams,
        querystring: FormatQuery,
        produces: ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/json'],
        response: fileResponse,
      },
    },
    async (request, reply) => {
      const format = request.query.format ?? 'csv';
      return sendFile(reply, await imports.template(actorOf(request), format), format, 'customers-template');
    },
  );
}

function exportRoutes(fastify: FastifyInstance, exports: CustomerExport): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1.7/app/:appId/customers/export',
    {
      schema: {
        tags,
        summary: "Export the customers the caller may see, with the list's filters, as CSV or XLSX (streamed; written to the audit log)",
        params: AppIdParams,
        querystring: ExportQuery,
        produces: ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/json'],
        response: fileResponse,
      },
    },
    async (request, reply) => {
      const format = request.query.format ?? 'csv';
      const body = await exports.exportCustomers(actorOf(request), {
        filter: { keyword: request.query.keyword, groupId: request.query.group_id },
        format,
        ownerId: request.query.svc_user_id,
      });
      return sendFile(reply, body, format, 'customers');
    },
  );
}

export async function dataOpsRoutes(fastify: FastifyInstance, opts: { dataops: DataOpsServices }): Promise<void> {
  importRoutes(fastify, opts.dataops.imports);
  beforeImportRoutes(fastify, opts.dataops.imports);
  exportRoutes(fastify, opts.dataops.exports);
}
