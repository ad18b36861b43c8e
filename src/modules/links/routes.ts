import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { actorOf } from '../../http/auth.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { Link } from '../histories/schemas.ts';
import { AppIdParams } from '../projects/schemas.ts';
import type { LinkAnalytics as Analytics } from './analytics.service.ts';
import { roomViewerRoutes } from './room.routes.ts';
import { Acceptance, AcceptancesQuery, AnalyticsQuery, AppLinkParams, LinkAnalytics, LinkBody, WithUrlQuery } from './schemas.ts';
import type { LinkAgreements, LinkManagement, LinksService } from './service.ts';
import { type ViewerRoutesOptions, viewerRoutes } from './viewer.routes.ts';

const tags = ['Links'];

export interface LinksRoutesOptions extends ViewerRoutesOptions {
  links: LinksService;
}

export async function linksRoutes(fastify: FastifyInstance, opts: LinksRoutesOptions): Promise<void> {
  const { links } = opts;
  managementRoutes(fastify, links.management);
  agreementRoutes(fastify, links.agreements);
  analyticsRoutes(fastify, links.analytics);
  viewerRoutes(fastify, links, opts);
  roomViewerRoutes(fastify, links, opts);
}

/** The API: links made through Rapport, by the project's members (the auth hook resolves the actor). */
function managementRoutes(fastify: FastifyInstance, management: LinkManagement): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1.7/app/:appId/links',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags,
        summary:
          'Create a link (any member; it is theirs): a file (type 1), web page (2), redirect (3) or data room (4) link with a share token',
        description:
          'Answers the Link record, as `GET /api/v1.7/app/{app-id}/links` shows it (`url` with with_url=1, PUBLIC_BASE_URL/l/{shareToken}). ' +
          'The share token carries 128 random bits. Failures: name_required, file_id_required, file_not_found, website_required, ' +
          'website_invalid (only http and https), room_id_required, room_not_found (not a room of the project the caller may share), ' +
          'customer_not_found, passcode_invalid, expires_at_invalid, form_fields_invalid, tags_invalid.',
        params: AppIdParams,
        querystring: WithUrlQuery,
        body: LinkBody,
        response: businessResponses(Link),
      },
    },
    async (request) => {
      const withUrl = request.body.with_url === 1;
      return ok(await management.create(actorOf(request), { input: withoutUrlFlag(request.body), withUrl }));
    },
  );

  app.put(
    '/api/v1.7/app/:appId/link/:linkId',
    {
      bodyLimit: BODY_LIMITS.default,
      schema: {
        tags,
        summary: "Edit a link (Master/Admin: any of the project's; Sales: their own): the fields given change",
        description: 'Answers the Link record. A link the caller may not change is link_not_found, as an unknown one is.',
        params: AppLinkParams,
        querystring: WithUrlQuery,
        body: LinkBody,
        response: businessResponses(Link),
      },
    },
    async (request) =>
      ok(
        await management.update(actorOf(request), {
          linkId: request.params.linkId,
          input: withoutUrlFlag(request.body),
          withUrl: request.body.with_url === 1,
        }),
      ),
  );

  app.delete(
    '/api/v1.7/app/:appId/link/:linkId',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: 'Disable a link (Master/Admin: any; Sales: their own): its page answers 410 Gone; its views and counters stay',
        params: AppLinkParams,
        response: businessResponses(Type.Boolean()),
      },
    },
    async (request) => ok(await management.disable(actorOf(request), { linkId: request.params.linkId })),
  );
}

/** The acceptances of a link's agreement, for those who may edit the link: JSON pages, or CSV. */
function agreementRoutes(fastify: FastifyInstance, agreements: LinkAgreements): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1.7/app/:appId/link/:linkId/agreements',
    {
      schema: {
        tags,
        summary: "List the acceptances of a link's agreement, newest first (Master/Admin: any link of the project; Sales: their own)",
        description:
          'Each acceptance: the version and the hash (SHA-256) of the text accepted, the e-mail address from the gate when the link has one (verified when it asks a code), ' +
          'the name, the visitor, the view read after it, when, the client address (as stored) and user agent. `format=csv`: every acceptance as CSV ' +
          '(UTF-8 with a byte order mark, formula-neutralised as the customer export). A link the caller may not edit is link_not_found.',
        params: AppLinkParams,
        querystring: AcceptancesQuery,
        produces: ['application/json', 'text/csv'],
        response: businessResponses(Type.Array(Acceptance)),
      },
    },
    async (request, reply) => {
      if (request.query.format === 'csv') {
        const body = await agreements.csv(actorOf(request), { linkId: request.params.linkId });
        return reply
          .type('text/csv; charset=utf-8')
          .header('Content-Disposition', `attachment; filename="agreements-${request.params.linkId.replace(/[^A-Za-z0-9_-]/g, '_')}.csv"`)
          .header('Cache-Control', 'no-store')
          .send(body as never);
      }
      return ok(await agreements.list(actorOf(request), { linkId: request.params.linkId, ...page(request.query) }));
    },
  );
}

/** A link's reading analytics, for those who may read its views: JSON, or its viewers as CSV. */
function analyticsRoutes(fastify: FastifyInstance, analytics: Analytics): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const analyticsResponses = businessResponses(LinkAnalytics);
  app.get(
    '/api/v1.7/app/:appId/link/:linkId/analytics',
    {
      schema: {
        tags,
        summary:
          "A link's reading analytics (Master/Admin: any link of the project; Sales: their own): views, viewers, each version's pages",
        description:
          'Per link: views and unique viewers; per version of its file: views, unique viewers, completion, median time, every page ' +
          '(views, average time, reach) and the drop-off page; a page of its viewers (start_index, count). `version` (and `file_id`) ' +
          'picks one version. `format=csv` answers every viewer as a CSV file (text/csv, formula-like cells neutralised) instead. ' +
          'A link the caller may not read is link_not_found. See docs/links.md, "Reading analytics".',
        params: AppLinkParams,
        querystring: AnalyticsQuery,
        response: {
          ...analyticsResponses,
          200: {
            description: 'Success envelope (failures are HTTP 200 {status:0, code, msg}); with format=csv, the CSV file',
            content: {
              'application/json': { schema: analyticsResponses[200] },
              'text/csv': { schema: Type.String({ description: 'viewerId,customerId,viewerName,views,completion,seconds,lastViewedAt' }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const asked = { linkId: request.params.linkId, version: q.version, fileId: q.file_id };
      if (q.format !== 'csv') return ok(await analytics.read(actorOf(request), { ...asked, page: page(q) }));
      const body = await analytics.csv(actorOf(request), asked);
      const name = /^[\w-]{1,64}$/.test(asked.linkId) ? `link-${asked.linkId}-viewers.csv` : 'link-viewers.csv';
      return (
        reply
          .type('text/csv; charset=utf-8')
          .header('Content-Disposition', `attachment; filename="${name}"`)
          .header('Cache-Control', 'no-store')
          // A stream is sent as it comes, never through a schema's serialiser (the schemas type the answer).
          .send(body as never)
      );
    },
  );
}

/** The link's fields, without the answer's `with_url` flag (a parameter like the others: query or form). */
function withoutUrlFlag<T extends { with_url?: number | undefined }>(body: T): Omit<T, 'with_url'> {
  const { with_url: _flag, ...input } = body;
  return input;
}
