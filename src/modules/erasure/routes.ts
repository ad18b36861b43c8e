import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { ErasurePath, ErasureResult } from './schemas.ts';
import type { ErasureService } from './service.ts';

export async function erasureRoutes(fastify: FastifyInstance, opts: { erasure: ErasureService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { erasure } = opts;
  app.post(
    '/api/v1.7/app/:appId/customer/:customerId/erase',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags: ['Customers'],
        summary: 'Erase a customer for good with its history (right to be forgotten; Master/Admin)',
        params: ErasurePath,
        body: Type.Optional(Type.Object({})),
        response: businessResponses(ErasureResult),
      },
    },
    async (request) => ok(await erasure.erase(request.params.appId, request.user.id, request.params.customerId)),
  );
}
