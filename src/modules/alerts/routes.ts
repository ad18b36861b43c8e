import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { InboxQuery, Notification, NotificationParams, ReadAllBody, Settings, SettingsBody, UnreadQuery } from './schemas.ts';
import type { AlertCaller, AlertsServices } from './service.ts';

const tags = ['Alerts'];

/** The signed-in user the auth hook resolved. */
const callerOf = (request: FastifyRequest): AlertCaller => ({ id: request.user.id, email: request.user.email ?? null });

/** A member's notification settings (docs/alerts.md "Settings"). */
function settingsRoutes(fastify: FastifyInstance, services: AlertsServices): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { settings } = services;

  app.get(
    '/api/v1.7/user/notification-settings',
    {
      schema: {
        tags,
        summary:
          "The caller's notification settings: signals, inbox, e-mail (instant or a daily digest at their hour), and their choice in each project",
        response: businessResponses(Settings),
      },
    },
    async (request) => ok(await settings.get(callerOf(request))),
  );

  app.put(
    '/api/v1.7/user/notification-settings',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags,
        summary: "Change the caller's notification settings: the fields given change",
        description:
          'signals_invalid, read_threshold_invalid, revisit_days_invalid, email_mode_invalid, time_zone_invalid, digest_hour_invalid, locale_invalid, projects_invalid, ' +
          'scope_invalid, app_not_found (a project of `projects` the caller is no active member of). See docs/alerts.md.',
        body: SettingsBody,
        response: businessResponses(Settings),
      },
    },
    async (request) => ok(await settings.update(callerOf(request), request.body)),
  );
}

/** The console's inbox (docs/alerts.md "The inbox"). */
function inboxRoutes(fastify: FastifyInstance, services: AlertsServices): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { inbox } = services;

  app.get(
    '/api/v1.7/notifications',
    {
      schema: {
        tags,
        summary:
          "The caller's notifications in every project, newest first: about customers they may see, in projects they are an active member of",
        querystring: InboxQuery,
        response: businessResponses(Type.Array(Notification)),
      },
    },
    async (request) => ok(await inbox.list(callerOf(request), request.query, page(request.query))),
  );

  app.get(
    '/api/v1.7/notifications/unread-count',
    {
      schema: {
        tags,
        summary: 'How many of the caller’s notifications are unread',
        querystring: UnreadQuery,
        response: businessResponses(Type.Object({ unread: Type.Integer() })),
      },
    },
    async (request) => ok(await inbox.unreadCount(callerOf(request), request.query)),
  );

  app.post(
    '/api/v1.7/notifications/read',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: "Mark the caller's unread notifications read: all, one project's, or those up to one (`until`)",
        description: 'notification_not_found (an `until` that is not one of the caller’s).',
        body: ReadAllBody,
        response: businessResponses(Type.Object({ updated: Type.Integer() })),
      },
    },
    async (request) => ok(await inbox.markAllRead(callerOf(request), request.body ?? {})),
  );

  app.post(
    '/api/v1.7/notifications/:notificationId/read',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Mark one of the caller’s notifications read',
        description: 'notification_not_found: another’s, one about a customer the caller may no longer see, or none.',
        params: NotificationParams,
        response: businessResponses(Notification),
      },
    },
    async (request) => ok(await inbox.markRead(callerOf(request), request.params.notificationId)),
  );
}

export async function alertsRoutes(fastify: FastifyInstance, opts: { alerts: AlertsServices }): Promise<void> {
  settingsRoutes(fastify, opts.alerts);
  inboxRoutes(fastify, opts.alerts);
}
