import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { BulkBody, BulkJob, BulkPath } from './schemas.ts';
import type { BulkServices } from './service.ts';

const tags = ['Customer bulk actions'];

const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

/** Bulk actions on customers: start one, follow it, take an export's file (docs/customers.md "Bulk actions"). */
export async function bulkRoutes(fastify: FastifyInstance, opts: { bulk: BulkServices }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { jobs } = opts.bulk;

  app.post(
    '/api/v1.7/app/:appId/customers/bulk',
    {
      // Up to 10,000 customer ids.
      bodyLimit: BODY_LIMITS.records,
      schema: {
        tags,
        summary:
          'Assign, group, add to a campaign, export or delete chosen customers, or all matching the list filters, as a job (answers it, queued)',
        description:
          "Each customer is checked as the single-customer operation checks it (a Sales member: only their own; assigning to another member: Master or Admin). See docs/customers.md 'Bulk actions'.",
        params: AppIdParams,
        body: BulkBody,
        response: businessResponses(BulkJob),
      },
    },
    async (request) => ok(await jobs.start(actorOf(request), request.body)),
  );

  app.get(
    '/api/v1.7/app/:appId/customers/bulk',
    {
      schema: {
        tags,
        summary: "The caller's recent bulk actions, newest first (Master and Admin: everyone's)",
        params: AppIdParams,
        response: businessResponses(Type.Array(BulkJob)),
      },
    },
    async (request) => ok(await jobs.recent(actorOf(request))),
  );

  app.get(
    '/api/v1.7/app/:appId/customers/bulk/:bulkId',
    {
      schema: {
        tags,
        summary: "A bulk action's progress and result (its creator, Master, Admin)",
        params: BulkPath,
        response: businessResponses(BulkJob),
      },
    },
    async (request) => ok(await jobs.get(actorOf(request), request.params.bulkId)),
  );

  app.get(
    '/api/v1.7/app/:appId/customers/bulk/:bulkId/file',
    {
      schema: {
        tags,
        summary: "A finished bulk export's file, CSV or XLSX (its creator, Master, Admin; kept a day)",
        params: BulkPath,
        produces: ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/json'],
        response: {
          200: { description: 'the file (CSV or XLSX), or a business failure in the envelope', ...Type.Unknown() },
          403: businessResponses(Type.Null())[403],
          429: businessResponses(Type.Null())[429],
        },
      },
    },
    async (request, reply) => {
      const { body, format } = await jobs.file(actorOf(request), request.params.bulkId);
      return reply
        .type(CONTENT_TYPES[format])
        .header('Content-Disposition', `attachment; filename="customers.${format}"`)
        .header('Cache-Control', 'no-store')
        .send(body);
    },
  );
}
