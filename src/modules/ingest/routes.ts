import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../http/auth.ts';
import { Envelope, FailureEnvelope, OAuthErrorBody, RateLimited, ok } from '../../http/envelope.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { type IngestCaller, type IngestService, MAX_BATCH_BYTES } from './service.ts';

const IngestQuery = Type.Object({
  app_secret: Type.Optional(Type.String({ maxLength: 256, description: 'the project secret (or send X-App-Secret)' })),
});

/** Who each request was let in as (checked before its body is read). */
const callers = new WeakMap<FastifyRequest, IngestCaller>();

export async function ingestRoutes(fastify: FastifyInstance, opts: { ingest: IngestService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1.7/app/:appId/events',
    {
      // Authenticated by the project secret or a Master/Admin token before the body is read; the
      // request then counts against the project's rate limit (by secret) or the token's.
      config: { auth: 'none', limitBy: 'caller' },
      bodyLimit: MAX_BATCH_BYTES,
      onRequest: async (request, reply) => {
        const { appId } = request.params as { appId: string };
        // An id no project can have is refused by validation, without asking the database.
        if (appId.length > 64 || appId.includes('\u0000')) return fastify.limits.count(request, reply, 'ip');
        const header = request.headers['x-app-secret'];
        const query = request.query as { app_secret?: unknown };
        const secret =
          (Array.isArray(header) ? header[0] : header) ?? (typeof query.app_secret === 'string' ? query.app_secret : undefined);
        const caller = await fastify.limits.countAs(
          request,
          reply,
          () => opts.ingest.authorize(appId, { secret, token: bearerToken(request) }),
          (c) => (c.by === 'secret' ? { project: c.appId } : { user: c.defaultOwner }),
        );
        callers.set(request, caller);
      },
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
          408: { ...FailureEnvelope, description: 'body_too_slow: the body arrived under the minimum rate' },
          413: FailureEnvelope,
          429: RateLimited,
        },
      },
    },
    async (request) => {
      const caller = callers.get(request);
      if (caller === undefined) throw new Error('ingestion request without its authorization');
      return ok(await opts.ingest.ingest(caller, request.body));
    },
  );
}
