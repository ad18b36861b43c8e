import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { businessResponses, ok } from '../../http/envelope.ts';
import { PagingQuery, page } from '../../http/paging.ts';
import { AppIdParams } from '../projects/schemas.ts';
import type { AuditService } from './service.ts';

const Entry = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  svcUserId: Type.Union([Type.String(), Type.Null()], { description: 'who made the change; null when no user did (the CLI)' }),
  action: Type.String({ description: 'member.add, member.remove, customer.transfer_owner, webhook.create, … (docs/projects.md)' }),
  targetType: Type.String(),
  targetId: Type.String(),
  detail: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  createdAt: Type.String(),
});

export async function auditRoutes(fastify: FastifyInstance, opts: { audit: AuditService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { audit } = opts;
  app.get(
    '/api/v1.7/app/:appId/audit-log',
    {
      config: { project: 'manager' },
      schema: {
        tags: ['Projects'],
        summary: 'Who did what in the project, newest first (Master/Admin; beyond the interface)',
        params: AppIdParams,
        querystring: Type.Object({ ...PagingQuery }),
        response: businessResponses(Type.Array(Entry)),
      },
    },
    async (request) => ok(await audit.list(request.params.appId, request.user.id, page(request.query))),
  );
}
