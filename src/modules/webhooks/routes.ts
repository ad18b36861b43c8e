import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { PagingQuery, page } from '../../http/paging.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { channelRoutes } from './channels.routes.ts';
import type { NotificationChannels, WebhooksService } from './service.ts';
import { Nullable, NullableString, NullableInteger } from '../../http/schema-types.ts';

const tags = ['Events out'];
const S = NullableString;
const HookParams = Type.Object({ appId: Type.String({ maxLength: 64 }), id: Type.String({ maxLength: 64 }) });

const Webhook = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  url: Type.String(),
  secret: Type.String({ description: 'HMAC-SHA256 key of X-Rapport-Signature' }),
  domainTypes: Nullable(Type.Array(Type.String())),
  status: Type.String({ description: 'active or disabled' }),
  disabledReason: S,
  createdAt: Type.String(),
});

const Delivery = Type.Object({
  id: Type.String(),
  eventIds: Type.Array(Type.String()),
  status: Type.String({ description: 'pending, delivered or dead' }),
  attempts: Type.Integer(),
  lastStatusCode: NullableInteger,
  lastError: S,
  nextAttemptAt: S,
  createdAt: Type.String(),
  deliveredAt: S,
});

const EventMessage = Type.Object({
  id: Type.String(),
  event_type: Type.String(),
  domainType: Type.String(),
  domainId: Type.String(),
  body: Type.Unknown(),
  createdAt: Type.String(),
});

/** Subscribing a URL, the project's webhooks, removing one. */
function subscriptionRoutes(fastify: FastifyInstance, webhooks: WebhooksService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1.7/app/:appId/webhooks',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Subscribe a URL to the project events (Master/Admin)',
        params: AppIdParams,
        body: Type.Object({
          url: Type.Optional(Type.String({ maxLength: 5000 })),
          domain_types: Type.Optional(Type.String({ maxLength: 500, description: 'comma list, e.g. Customer,BehaviourLog; default all' })),
        }),
        response: businessResponses(Webhook),
      },
    },
    async (request) => ok(await webhooks.create(request.params.appId, request.user.id, request.body)),
  );

  app.get(
    '/api/v1.7/app/:appId/webhooks',
    {
      config: { project: 'manager' },
      schema: { tags, summary: "The project's webhooks", params: AppIdParams, response: businessResponses(Type.Array(Webhook)) },
    },
    async (request) => ok(await webhooks.list(request.params.appId, request.user.id)),
  );

  app.delete(
    '/api/v1.7/app/:appId/webhooks/:id',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: { tags, summary: 'Remove a webhook', params: HookParams, response: businessResponses(Type.Literal(true)) },
    },
    async (request) => ok(await webhooks.remove(request.params.appId, request.user.id, request.params.id)),
  );
}

/** A webhook's delivery log, replays and a test event. */
function deliveryRoutes(fastify: FastifyInstance, webhooks: WebhooksService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1.7/app/:appId/webhooks/:id/deliveries',
    {
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Delivery log of a webhook, newest first',
        params: HookParams,
        querystring: Type.Object({ ...PagingQuery }),
        response: businessResponses(Type.Array(Delivery)),
      },
    },
    async (request) => ok(await webhooks.deliveries(request.params.appId, request.user.id, request.params.id, page(request.query))),
  );

  app.post(
    '/api/v1.7/app/:appId/webhooks/:id/replay',
    {
      bodyLimit: BODY_LIMITS.default,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Send again: the given event ids, or every dead-lettered delivery',
        params: HookParams,
        body: Type.Object({ event_ids: Type.Optional(Type.String({ maxLength: 100000 })) }),
        response: businessResponses(Type.Object({ deliveries: Type.Integer() })),
      },
    },
    async (request) => ok(await webhooks.replay(request.params.appId, request.user.id, request.params.id, request.body.event_ids)),
  );

  app.post(
    '/api/v1.7/app/:appId/webhooks/:id/test',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Send a test event (webhook.test) to the webhook now and answer what the receiver said',
        description:
          'One event of type `webhook.test` (domainType `Webhook`, domainId the webhook id), signed like every delivery, ' +
          "sent synchronously (up to 10 s). It is not stored: not in the feed, not in the delivery log. `ok` is a 2xx answer; `status` the receiver's " +
          'HTTP status (null when none came), `error` why it failed.',
        params: HookParams,
        response: businessResponses(Type.Object({ ok: Type.Boolean(), status: NullableInteger, error: S, eventId: Type.String() })),
      },
    },
    async (request) => ok(await webhooks.test(request.params.appId, request.user.id, request.params.id)),
  );
}

/** The pull feed. */
function feedRoutes(fastify: FastifyInstance, webhooks: WebhooksService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1.7/app/:appId/events',
    {
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Pull feed: events in commit order after a cursor (Master/Admin)',
        params: AppIdParams,
        querystring: Type.Object({
          after: Type.Optional(Type.String({ maxLength: 32, description: 'the `next` of the previous page; omit to start' })),
          count: PagingQuery.count,
        }),
        response: businessResponses(Type.Object({ events: Type.Array(EventMessage), next: Type.String(), hasMore: Type.Boolean() })),
      },
    },
    async (request) => ok(await webhooks.feed(request.params.appId, request.user.id, request.query.after, page(request.query))),
  );
}

export async function webhooksRoutes(
  fastify: FastifyInstance,
  opts: { webhooks: WebhooksService; channels: NotificationChannels },
): Promise<void> {
  subscriptionRoutes(fastify, opts.webhooks);
  deliveryRoutes(fastify, opts.webhooks);
  feedRoutes(fastify, opts.webhooks);
  await channelRoutes(fastify, { channels: opts.channels });
}
