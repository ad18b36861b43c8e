import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { bearerToken } from '../../http/auth.ts';
import { Envelope, FailureEnvelope, OAuthErrorBody, ok } from '../../http/envelope.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { type IngestService, MAX_BATCH_BYTES } from './service.ts';

const IngestQuery = Type.Object({
  app_secret: Type.Optional(Type.String({ maxLength: 256, description: 'the project secret (or send X-App-Secret)' })),
});

export async function ingestRoutes(fastify: FastifyInstance, opts: { ingest: IngestService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1.7/app/:appId/events',
    {
      // Authenticated by the project secret or a Master/Admin token, decided in the service.
      config: { auth: 'none' },
      bodyLimit: MAX_BATCH_BYTES,
      schema: {
        tags: ['Ingestion'],
        summary: 'Ingest a batch (≤ 1000, ≤ 5 MB) of event messages: Customer, BehaviourLog, Call, Link, LinkViewLog, Clue, Post',
        description:
          'JSON array of {event_type:"create", domainType, domainId, body}. All-or-nothing: one invalid item and nothing is stored ' +
          '({status:0, code:"invalid_events", msg, errors:[{index, msg}]}). Records already stored are skipped (idempotent).',
        params: AppIdParams,
        querystring: IngestQuery,
        body: Type.Unknown({ description: 'array of event messages' }),
        response: {
          200: {
            ...Envelope(Type.Object({ accepted: Type.Integer(), duplicates: Type.Integer() })),
            description: 'stored and skipped counts',
          },
          403: OAuthErrorBody,
          413: FailureEnvelope,
        },
      },
    },
    async (request) => {
      const header = request.headers['x-app-secret'];
      const secret = (Array.isArray(header) ? header[0] : header) ?? request.query.app_secret;
      return ok(await opts.ingest.ingest(request.params.appId, { secret, token: bearerToken(request) }, request.body));
    },
  );
}
