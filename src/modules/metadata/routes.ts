import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { businessResponses, ok } from '../../http/envelope.ts';
import type { MetadataService } from './service.ts';
import { MetadataItem } from './schemas.ts';

export async function metadataRoutes(fastify: FastifyInstance, opts: { metadata: MetadataService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1.7/metadata/customer',
    {
      schema: {
        tags: ['Customers'],
        summary: "The project's customer attributes (metadata), in order",
        querystring: Type.Object({ app_id: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: businessResponses(Type.Array(MetadataItem)),
      },
    },
    async (request) => ok(await opts.metadata.list(request.query.app_id, request.user.id)),
  );
}
