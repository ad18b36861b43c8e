import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { businessResponses, ok } from '../../http/envelope.ts';
import type { MetadataService } from './service.ts';
import { Nullable, NullableString } from '../../http/schema-types.ts';

export const MetadataItem = Type.Object({
  appId: Type.String(),
  name: Type.String(),
  type: Type.String(),
  title: Type.String(),
  isExt: Type.Boolean(),
  unique: Type.Boolean(),
  required: Type.Boolean(),
  visiable: Type.Boolean(),
  index: Type.Integer(),
  defaultValue: NullableString,
  optionValues: Nullable(Type.String({ description: 'JSON string [{"value","label"}]' })),
  readonly: Type.Integer(),
});

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
