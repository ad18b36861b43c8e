import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { OAuthErrorBody, businessResponses, ok } from '../../http/envelope.ts';
import { PagingQuery, page } from '../../http/paging.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { Call, CallsQuery, Link, LinkIdParams, LinksQuery, Post, PostsQuery, ViewLog } from './schemas.ts';
import type { HistoriesService } from './service.ts';

const tags = ['Histories'];

export async function historiesRoutes(fastify: FastifyInstance, opts: { histories: HistoriesService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { histories } = opts;

  app.get(
    '/api/v1.7/calls',
    {
      schema: {
        tags,
        summary: 'List sales calls by callTime desc (Master/Admin: the project; Sales: their own)',
        querystring: CallsQuery,
        response: businessResponses(Type.Array(Call)),
      },
    },
    async (request) => ok(await histories.listCalls(request.user.id, request.query, page(request.query))),
  );

  app.get(
    '/api/v1.7/app/:appId/links',
    {
      config: { project: 'history' },
      schema: {
        tags,
        summary: 'List sent links by createdAt desc, with view, viewer and clue counters',
        params: AppIdParams,
        querystring: LinksQuery,
        response: businessResponses(Type.Array(Link)),
      },
    },
    async (request) => ok(await histories.listLinks(request.params.appId, request.user.id, request.query, page(request.query))),
  );

  app.get(
    '/api/v1.7/link/:linkId/view-logs',
    {
      schema: {
        tags,
        summary: "List a link's view logs by viewTime desc, with page-turn durations",
        params: LinkIdParams,
        querystring: Type.Object(PagingQuery),
        response: businessResponses(Type.Array(ViewLog)),
      },
    },
    async (request) => ok(await histories.listViewLogs(request.params.linkId, request.user.id, page(request.query))),
  );

  app.get(
    '/api/v1.7/posts',
    {
      schema: {
        tags,
        summary: 'List mass e-mail sends by sendTime desc: a BARE array (failures keep the envelope shapes)',
        querystring: PostsQuery,
        response: {
          200: { ...Type.Array(Post), description: 'bare array; failures are HTTP 200 {status:0, code, msg}' },
          403: OAuthErrorBody,
        },
      },
    },
    async (request) => histories.listPosts(request.user.id, request.query, page(request.query)),
  );
}
