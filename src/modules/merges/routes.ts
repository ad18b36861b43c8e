import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { actorOf } from '../../http/auth.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { Customer, CustomerPath } from '../customers/schemas.ts';
import { DuplicateSet, DuplicatesQuery, MergeBody } from './schemas.ts';
import type { MergesService } from './service.ts';

const tags = ['Customers'];
const MERGE_PARAMS = new Set(['merge_user_ids', 'main_customer_id', 'merge_target_id', 'svcUserId']);

export async function mergesRoutes(fastify: FastifyInstance, opts: { merges: MergesService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { merges } = opts;

  app.post(
    '/api/v1.7/app/:appId/member/:svcUserId/customer/merge',
    {
      bodyLimit: BODY_LIMITS.records,
      schema: {
        tags,
        summary: 'Merge customers into one (all or nothing): the others get status 2 and mergedCustomerId',
        params: CustomerPath,
        body: MergeBody,
        response: businessResponses(Customer),
      },
    },
    async (request) => {
      const body = request.body as Record<string, unknown>;
      const overrides = Object.fromEntries(Object.entries(body).filter(([k]) => !MERGE_PARAMS.has(k)));
      return ok(
        await merges.merge(request.params.appId, request.user.id, request.params.svcUserId, {
          merge_user_ids: request.body.merge_user_ids,
          main_customer_id: request.body.main_customer_id,
          merge_target_id: request.body.merge_target_id,
          overrides,
        }),
      );
    },
  );

  app.get(
    '/api/v1.7/app/:appId/member/:svcUserId/customer/duplicates',
    {
      schema: {
        tags,
        summary: 'Sets of live customers sharing a mobile number, an e-mail or a name and company (feeds the merge)',
        params: CustomerPath,
        querystring: DuplicatesQuery,
        response: businessResponses(Type.Array(DuplicateSet)),
      },
    },
    async (request) =>
      ok(
        await merges.duplicates(actorOf(request), {
          pathUserId: request.params.svcUserId,
          by: request.query.by,
          page: page(request.query),
        }),
      ),
  );
}
