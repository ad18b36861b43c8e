import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { Channel, ChannelBody, ChannelEdit, ChannelParams, ChannelTest, ChannelsParams } from './schemas.ts';
import type { NotificationChannels } from './service.ts';

const tags = ['Alerts'];
const codes =
  'url_required, url_invalid, channel_kind_invalid, channel_secret_invalid, signals_invalid, read_threshold_invalid, locale_invalid, channel_name_invalid';

/** A project's notification channels: chat robots and alert webhooks (docs/alerts.md "Chat channels"); Master/Admin only. */
export async function channelRoutes(fastify: FastifyInstance, opts: { channels: NotificationChannels }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { channels } = opts;

  app.post(
    '/api/v1.7/app/:appId/notification-channels',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary:
          "Add a notification channel: a Slack, WeCom, DingTalk or Feishu robot, or a webhook, that posts the project's alerts (Master/Admin)",
        description: `${codes}, too_many_channels. See docs/alerts.md.`,
        params: ChannelsParams,
        body: ChannelBody,
        response: businessResponses(Channel),
      },
    },
    async (request) => ok(await channels.create(actorOf(request), request.body)),
  );

  app.get(
    '/api/v1.7/app/:appId/notification-channels',
    {
      config: { project: 'manager' },
      schema: {
        tags,
        summary: "The project's notification channels (URLs and secrets masked)",
        params: ChannelsParams,
        response: businessResponses(Type.Array(Channel)),
      },
    },
    async (request) => ok(await channels.list(actorOf(request))),
  );

  app.put(
    '/api/v1.7/app/:appId/notification-channels/:channelId',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Change a notification channel: the fields given change; active=1 turns it on again',
        description: `channel_not_found, ${codes}.`,
        params: ChannelParams,
        body: ChannelEdit,
        response: businessResponses(Channel),
      },
    },
    async (request) => ok(await channels.update(actorOf(request), { channelId: request.params.channelId, input: request.body })),
  );

  app.delete(
    '/api/v1.7/app/:appId/notification-channels/:channelId',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Remove a notification channel and its deliveries',
        params: ChannelParams,
        response: businessResponses(Type.Literal(true)),
      },
    },
    async (request) => ok(await channels.remove(actorOf(request), request.params.channelId)),
  );

  app.post(
    '/api/v1.7/app/:appId/notification-channels/:channelId/test',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: "Post a test message to the channel now, in its platform's format and signature, and answer what the platform said",
        description:
          '`ok`: the platform took it (HTTP 2xx, and its own code 0 for WeCom, DingTalk, Feishu); `status` its HTTP status (null when none came within 10 s); `error` why not.',
        params: ChannelParams,
        response: businessResponses(ChannelTest),
      },
    },
    async (request) => ok(await channels.test(actorOf(request), request.params.channelId)),
  );
}
