import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { actorOf } from '../../http/auth.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { Link } from '../histories/schemas.ts';
import { AppIdParams } from '../projects/schemas.ts';
import { AppLinkParams, LinkBody, WithUrlQuery } from './schemas.ts';
import type { LinkManagement, LinksService } from './service.ts';
import { roomViewerRoutes } from './room.routes.ts';
import { type ViewerRoutesOptions, viewerRoutes } from './viewer.routes.ts';

const tags = ['Links'];

export interface LinksRoutesOptions extends ViewerRoutesOptions {
  links: LinksService;
}

export async function linksRoutes(fastify: FastifyInstance, opts: LinksRoutesOptions): Promise<void> {
  const { links } = opts;
  managementRoutes(fastify, links.management);
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

/** The link's fields, without the answer's `with_url` flag (a parameter like the others: query or form). */
function withoutUrlFlag<T extends { with_url?: number | undefined }>(body: T): Omit<T, 'with_url'> {
  const { with_url: _flag, ...input } = body;
  return input;
}
