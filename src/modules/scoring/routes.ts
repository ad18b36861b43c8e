import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { HotAccount, HotLead, HotLeadsQuery, ScoringBody, ScoringSettings } from './schemas.ts';
import type { ScoringService } from './service.ts';

const tags = ['Scoring'];

/** A project's scoring rules and its hot leads (docs/scoring.md). */
export async function scoringRoutes(fastify: FastifyInstance, opts: { scoring: ScoringService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { settings, hotLeads } = opts.scoring;

  app.get(
    '/api/v1.7/app/:appId/scoring',
    {
      schema: {
        tags,
        summary: "The project's scoring rules: points per behaviour, half-life, key pages (any member)",
        description: 'docs/scoring.md. A project that never set them has the defaults.',
        params: AppIdParams,
        response: businessResponses(ScoringSettings),
      },
    },
    async (request) => ok(await settings.get(actorOf(request))),
  );

  app.put(
    '/api/v1.7/app/:appId/scoring',
    {
      bodyLimit: BODY_LIMITS.default,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: "Change the project's scoring rules (Master/Admin); its customers are then scored again in the background",
        description:
          'Each setting given replaces the current one (weights one by one). Failures: scoring_invalid (the first wrong setting, ' +
          'nothing stored), Bad Request (none given).',
        params: AppIdParams,
        body: ScoringBody,
        response: businessResponses(ScoringSettings),
      },
    },
    async (request) => ok(await settings.put(actorOf(request), request.body as Record<string, unknown>)),
  );

  app.get(
    '/api/v1.7/app/:appId/hot-leads',
    {
      schema: {
        tags,
        summary: 'Customers whose score rose most recently, with their score, reasons and last signal (visibility as the customer list)',
        description:
          "docs/scoring.md. svc_user_id: a member's id or all (Sales: their own only). group_by=company: buying groups as one account " +
          '(the company field, else the e-mail domain; free-mail domains never), made from the 1,000 most recent risers. Failures: group_by_invalid.',
        params: AppIdParams,
        querystring: HotLeadsQuery,
        response: businessResponses(Type.Union([Type.Array(HotLead), Type.Array(HotAccount)])),
      },
    },
    async (request) => {
      const { query } = request;
      return ok(await hotLeads.list(actorOf(request), { ownerId: query.svc_user_id, page: page(query), groupBy: query.group_by }));
    },
  );
}
