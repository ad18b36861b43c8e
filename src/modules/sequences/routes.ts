import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { PagingQuery, page } from '../../http/paging.ts';
import { publicPage } from '../../http/public-pages.ts';
import { multipartLimits } from '../../http/upload.ts';
import { BulkJob } from '../bulk/schemas.ts';
import type { BulkServices } from '../bulk/service.ts';
import { AppIdParams } from '../projects/schemas.ts';
import {
  CustomerParams,
  EnrollBody,
  Enrollment,
  EnrollmentParams,
  EnrollmentsQuery,
  Exited,
  ExitBody,
  Funnel,
  InboundParams,
  Sequence,
  SequenceBody,
  SequenceParams,
  Settings,
  SettingsBody,
  Version,
  VersionParams,
} from './schemas.ts';
import type { ManualExit, SequenceServices } from './service.ts';

/** `customer_ids` as an array, or comma-separated (form fields, as the campaigns' `customer_ids`). */
function idList(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined || Array.isArray(v)) return v;
  return v
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
}

const tags = ['Sequences'];

/** Send settings (docs/sequences.md "Send settings"). */
function settingsRoutes(fastify: FastifyInstance, services: SequenceServices): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { settings } = services;

  app.get(
    '/api/v1.7/app/:appId/sequence-settings',
    {
      config: { project: 'manager' },
      schema: {
        tags,
        summary: "The project's send settings and inbound mail webhook (Master/Admin)",
        params: AppIdParams,
        response: businessResponses(Settings),
      },
    },
    async (request) => ok(await settings.get(actorOf(request))),
  );

  app.put(
    '/api/v1.7/app/:appId/sequence-settings',
    {
      config: { project: 'manager' },
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Change the send settings: window, days, zone, daily cap, reply address (Master/Admin)',
        description: 'time_zone_invalid, windowStart_invalid, windowEnd_invalid, days_invalid, dailyCap_invalid, replyAddress_invalid.',
        params: AppIdParams,
        body: SettingsBody,
        response: businessResponses(Settings),
      },
    },
    async (request) => ok(await settings.put(actorOf(request), request.body)),
  );
}

/** Definitions and their versions (docs/sequences.md "Sequences"). */
function definitionRoutes(fastify: FastifyInstance, services: SequenceServices): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { definitions } = services;

  app.post(
    '/api/v1.7/app/:appId/sequences',
    {
      // Up to 20 steps of up to 512 KiB of HTML each.
      bodyLimit: BODY_LIMITS.campaign,
      schema: {
        tags,
        summary: 'Make a sequence: its steps (e-mail, manual e-mail, call, task, each after a wait in business days), its deck and jump',
        description:
          'name_required, name_invalid, steps_required, steps_invalid, deck_link_id_invalid, jump_invalid. See docs/sequences.md.',
        params: AppIdParams,
        body: SequenceBody,
        response: businessResponses(Sequence),
      },
    },
    async (request) => ok(await definitions.create(actorOf(request), request.body)),
  );

  app.get(
    '/api/v1.7/app/:appId/sequences',
    {
      schema: {
        tags,
        summary: "The project's sequences, newest first, with their enrollments counted by state",
        params: AppIdParams,
        querystring: Type.Object({ ...PagingQuery }),
        response: businessResponses(Type.Array(Sequence)),
      },
    },
    async (request) => ok(await definitions.list(actorOf(request), page(request.query))),
  );

  app.get(
    '/api/v1.7/app/:appId/sequence/:sequenceId',
    { schema: { tags, summary: 'A sequence as its current version says', params: SequenceParams, response: businessResponses(Sequence) } },
    async (request) => ok(await definitions.get(actorOf(request), request.params.sequenceId)),
  );

  app.put(
    '/api/v1.7/app/:appId/sequence/:sequenceId',
    {
      bodyLimit: BODY_LIMITS.campaign,
      schema: {
        tags,
        summary: 'Change a sequence (its creator, Master, Admin): a new version; enrolled customers keep the version they run',
        description: 'sequence_not_found, and the create call codes.',
        params: SequenceParams,
        body: SequenceBody,
        response: businessResponses(Sequence),
      },
    },
    async (request) => ok(await definitions.edit(actorOf(request), request.params.sequenceId, request.body)),
  );

  app.delete(
    '/api/v1.7/app/:appId/sequence/:sequenceId',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Archive a sequence (its creator, Master, Admin): its active and paused enrollments exit sequence_deleted',
        params: SequenceParams,
        response: businessResponses(Exited),
      },
    },
    async (request) => ok(await definitions.remove(actorOf(request), request.params.sequenceId)),
  );
}

/** A sequence's funnel and former versions (docs/sequences.md "Funnel", "Sequences"). */
function sequenceReadRoutes(fastify: FastifyInstance, services: SequenceServices): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { definitions } = services;

  app.get(
    '/api/v1.7/app/:appId/sequence/:sequenceId/funnel',
    {
      schema: {
        tags,
        summary: "A sequence's funnel: enrollments by state and exit reason; per step runs, mails sent, opened, clicked, replies, tasks",
        params: SequenceParams,
        response: businessResponses(Funnel),
      },
    },
    async (request) => ok(await services.funnel.funnel(actorOf(request), request.params.sequenceId)),
  );

  app.get(
    '/api/v1.7/app/:appId/sequence/:sequenceId/versions/:version',
    {
      schema: {
        tags,
        summary: 'One version of a sequence, as it was made',
        description: 'sequence_not_found, sequence_version_not_found.',
        params: VersionParams,
        response: businessResponses(Version),
      },
    },
    async (request) => ok(await definitions.version(actorOf(request), request.params.sequenceId, request.params.version)),
  );
}

/** Enrolments (docs/sequences.md "Enrolment"). */
function enrollmentRoutes(fastify: FastifyInstance, services: SequenceServices, bulk: BulkServices): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { enrollments } = services;

  app.post(
    '/api/v1.7/app/:appId/sequence/:sequenceId/enrollments',
    {
      // Up to 10,000 customer ids.
      bodyLimit: BODY_LIMITS.records,
      schema: {
        tags,
        summary:
          'Enroll chosen customers, or all matching the list filters, as a bulk job (answers it, queued; follow it at …/customers/bulk/{bulk-id})',
        description:
          'sequence_not_found, bulk_too_many, bulk_busy. Customers the caller may not see fail customer_not_found; those already enrolled (any state) already_enrolled.',
        params: SequenceParams,
        body: EnrollBody,
        response: businessResponses(BulkJob),
      },
    },
    async (request) =>
      ok(
        await bulk.jobs.start(actorOf(request), {
          action: 'enroll',
          sequenceId: request.params.sequenceId,
          customerIds: idList(request.body.customer_ids),
          all: request.body.all,
        }),
      ),
  );

  app.get(
    '/api/v1.7/app/:appId/sequence/:sequenceId/enrollments',
    {
      schema: {
        tags,
        summary: "A sequence's enrollments of the customers the caller may see, newest first",
        params: SequenceParams,
        querystring: EnrollmentsQuery,
        response: businessResponses(Type.Array(Enrollment)),
      },
    },
    async (request) =>
      ok(
        await enrollments.list(actorOf(request), {
          sequenceId: request.params.sequenceId,
          state: request.query.state,
          page: page(request.query),
        }),
      ),
  );

  app.get(
    '/api/v1.7/app/:appId/customer/:customerId/enrollments',
    {
      schema: {
        tags,
        summary: "A customer's enrollments in every sequence, newest first (the customer's page)",
        params: CustomerParams,
        response: businessResponses(Type.Array(Enrollment)),
      },
    },
    async (request) => ok(await enrollments.ofCustomer(actorOf(request), request.params.customerId)),
  );
}

/** An enrolment's changes, and "replied" (docs/sequences.md "Enrolment", "Replies"). */
function enrollmentChangeRoutes(fastify: FastifyInstance, services: SequenceServices): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { enrollments } = services;

  for (const [verb, summary] of [
    ['pause', 'Pause an active enrollment'],
    ['resume', 'Resume a paused enrollment: its next step is placed again (its wait from the previous step, the window)'],
  ] as const) {
    app.post(
      `/api/v1.7/app/:appId/enrollment/:enrollmentId/${verb}`,
      {
        bodyLimit: BODY_LIMITS.small,
        schema: {
          tags,
          summary,
          description: 'enrollment_not_found, enrollment_state_invalid.',
          params: EnrollmentParams,
          response: businessResponses(Enrollment),
        },
      },
      async (request) => ok(await enrollments[verb](actorOf(request), request.params.enrollmentId)),
    );
  }

  app.post(
    '/api/v1.7/app/:appId/enrollment/:enrollmentId/exit',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'End an active or paused enrollment: removed (the default) or replied',
        description: 'enrollment_not_found, enrollment_state_invalid.',
        params: EnrollmentParams,
        body: Type.Optional(ExitBody),
        response: businessResponses(Enrollment),
      },
    },
    async (request) =>
      ok(await enrollments.exit(actorOf(request), request.params.enrollmentId, request.body?.reason as ManualExit | undefined)),
  );

  app.post(
    '/api/v1.7/app/:appId/customer/:customerId/replied',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Mark a customer replied: every active or paused enrollment of theirs exits replied',
        description: 'customer_not_found.',
        params: CustomerParams,
        response: businessResponses(Exited),
      },
    },
    async (request) => ok(await enrollments.replied(actorOf(request), request.params.customerId)),
  );
}

/** The inbound mail webhook: a mail provider posts the mails sent to the project's reply address. No token: its address is the secret. */
function inboundRoutes(fastify: FastifyInstance, services: SequenceServices): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { inbound } = services;

  app.post(
    '/hooks/inbound-mail/:token',
    {
      // A mail's text and headers: attachments (SendGrid's file parts) are drained, never stored, within the body's limit.
      bodyLimit: BODY_LIMITS.records,
      config: { multipartOptions: multipartLimits({ files: 50, fields: 200, fieldBytes: BODY_LIMITS.records }) },
      schema: {
        ...publicPage(
          'Inbound mail (replies)',
          "A mail to the reply address, as Mailgun, SendGrid or Postmark post it (JSON or form): every enrollment of the project's customers with the sender's address exits replied. 200 whatever it found; 404 for an unknown token. See docs/sequences.md.",
        ),
        params: InboundParams,
        body: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        response: { 200: Type.Object({ status: Type.Integer() }) },
      },
      // The token is checked before the body is read: an unknown one is answered as any unknown address.
      onRequest: async (request, reply) => {
        const appId = await inbound.appOf((request.params as { token: string }).token);
        if (appId === undefined) return reply.callNotFound();
        (request as unknown as { inboundApp: string }).inboundApp = appId;
      },
    },
    async (request) => {
      await inbound.received((request as unknown as { inboundApp: string }).inboundApp, request.body ?? null);
      return { status: 1 };
    },
  );
}

export async function sequencesRoutes(fastify: FastifyInstance, opts: { sequences: SequenceServices; bulk: BulkServices }): Promise<void> {
  settingsRoutes(fastify, opts.sequences);
  definitionRoutes(fastify, opts.sequences);
  sequenceReadRoutes(fastify, opts.sequences);
  enrollmentRoutes(fastify, opts.sequences, opts.bulk);
  enrollmentChangeRoutes(fastify, opts.sequences);
  inboundRoutes(fastify, opts.sequences);
}
