import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { AppCustomerParams, BehaviourQuery, BehaviourRecord, CustomerIdParams, Overview, OverviewQuery } from './schemas.ts';
import type { BehaviourService } from './service.ts';

const tags = ['Customer behaviour'];

export async function behaviourRoutes(fastify: FastifyInstance, opts: { behaviour: BehaviourService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { behaviour } = opts;

  app.get(
    '/api/v1.7/customer/:customerId/overview',
    {
      schema: {
        tags,
        summary: "A customer's activity counters and lists over a window (summed from daily rollups)",
        params: CustomerIdParams,
        querystring: OverviewQuery,
        response: businessResponses(Overview),
      },
    },
    async (request) => ok(await behaviour.overview(request.params.customerId, request.user.id, request.query.time_range_type)),
  );

  app.get(
    '/api/v1.7/app/:appId/member/customer/:customerId/behaviour',
    {
      schema: {
        tags,
        summary: "A customer's behaviour records by when desc, with link, view log, clue, call and page-view joins",
        params: AppCustomerParams,
        querystring: BehaviourQuery,
        response: businessResponses(Type.Array(BehaviourRecord)),
      },
    },
    async (request) =>
      ok(
        await behaviour.list(actorOf(request), { customerId: request.params.customerId, range: request.query, page: page(request.query) }),
      ),
  );
}
