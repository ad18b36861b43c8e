import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { AppError } from '../../http/errors.ts';
import { publicPage } from '../../http/public-pages.ts';
import type { ViewerScript } from '../../lib/viewer-script.ts';
import { COLLECT_MAX_BYTES, type SiteService } from './service.ts';
import type { SiteStatus } from './status.service.ts';

export interface SiteRoutesOptions {
  site: SiteService;
  /** The site page's check of the latest event received. */
  status: SiteStatus;
  /** The snippet as built (dist/viewer/), or null when it has not been: /t.js is then 404. */
  script: ViewerScript | null;
}

/** How long browsers and proxies keep /t.js before asking again (its ETag makes asking cheap). */
const SCRIPT_MAX_AGE_S = 3600;

/**
 * The site snippet (docs/site-tracking.md): `GET /t.js` and its collect endpoint. Public, on other
 * sites' pages: no token, their own rate budgets, under the public pages' tag in the OpenAPI document.
 */
export async function siteRoutes(fastify: FastifyInstance, opts: SiteRoutesOptions): Promise<void> {
  const { site, script } = opts;
  lastEventRoute(fastify, opts.status);
  const etag = script === null ? null : `"${script.name.replace(/^site\.|\.js$/g, '')}"`;

  fastify.get(
    '/t.js',
    {
      config: { shareHost: 'serve', limitBy: 'none' },
      schema: publicPage(
        'The site snippet',
        'The tracking script a site includes (`<script async src=".../t.js" data-key="siteKey">`): JavaScript, gzipped when asked, with an ETag. 404 when the server was not built with it.',
      ),
    },
    async (request, reply) => {
      if (script === null || etag === null) return reply.code(404).type('text/plain; charset=utf-8').send('The site snippet is not built');
      reply
        .type('text/javascript; charset=utf-8')
        .header('Cache-Control', `public, max-age=${SCRIPT_MAX_AGE_S}`)
        .header('ETag', etag)
        .header('Vary', 'Accept-Encoding')
        .header('Cross-Origin-Resource-Policy', 'cross-origin');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')))
        return reply.header('Content-Encoding', 'gzip').send(script.gzipped);
      return reply.send(script.body);
    },
  );

  const keyOf = (request: FastifyRequest) => {
    const k = (request.query as { k?: unknown }).k;
    return typeof k === 'string' ? k : undefined;
  };
  const originOf = (request: FastifyRequest) => request.headers.origin;

  /** The answer may be read by the page that sent it (its origin is allowed), Retry-After included: the snippet sends a refused call again after it. */
  const allow = (reply: FastifyReply, origin: string) =>
    reply
      .header('Access-Control-Allow-Origin', origin)
      .header('Access-Control-Expose-Headers', 'Retry-After')
      .header('Vary', 'Origin')
      .header('Cross-Origin-Resource-Policy', 'cross-origin');

  // A preflight (a page sending JSON with fetch): allowed for the project's origins only.
  fastify.options(
    '/t/collect',
    {
      config: { shareHost: 'serve', limitBy: 'ip' },
      schema: publicPage(
        'Preflight of the collect call',
        "CORS preflight, `k` the site key: 204 allowing POST with Content-Type from the project's site origins only; any other origin `origin_not_allowed`.",
      ),
    },
    async (request, reply) => {
      const origin = originOf(request);
      await site.project(keyOf(request), origin, request.shareProject);
      allow(reply, origin as string)
        .header('Access-Control-Allow-Methods', 'POST')
        .header('Access-Control-Allow-Headers', 'Content-Type')
        .header('Access-Control-Max-Age', '600');
      return reply.code(204).send();
    },
  );

  fastify.post(
    '/t/collect',
    {
      bodyLimit: COLLECT_MAX_BYTES,
      config: { shareHost: 'serve', limitBy: 'caller', errorStyle: 'public', parameters: 'raw' },
      schema: publicPage(
        'Site events',
        'What the snippet sends, `k` the site key: a batch of visits, page views, leaves, forms, downloads, plays, contacts and identify calls as JSON or `text/plain` (sendBeacon), at most 16 KiB, from an allowed `Origin` only (403 `origin_not_allowed`). Answers the envelope; docs/site-tracking.md lists the fields.',
      ),
    },
    async (request, reply) => {
      let project: Awaited<ReturnType<SiteService['project']>>;
      try {
        project = await site.project(keyOf(request), originOf(request), request.shareProject);
      } catch (err) {
        // Refused keys and origins spend their address's budget: made-up keys buy no fresh one.
        if (err instanceof AppError) await fastify.limits.count(request, reply, 'ip');
        throw err;
      }
      // Allowed first, so that the page can read a 429's Retry-After. The address before the key: one
      // address's flood does not spend the budget of the site's other visitors.
      allow(reply, originOf(request) as string);
      await fastify.limits.count(request, reply, { siteAddress: request.ip });
      await fastify.limits.count(request, reply, { siteKey: project.appId });
      const visitor = { userAgent: request.headers['user-agent'], ip: request.ip };
      const result = await site.collect(project, request.body, visitor, (visitorId) =>
        fastify.limits.count(request, reply, { siteVisitor: `${project.appId}:${visitorId}` }),
      );
      return ok(result);
    },
  );
}

const LastEvent = Type.Object({
  receivedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the snippet last sent an event (ISO 8601, UTC), or null when it never did',
  }),
  site: Type.Union([Type.String(), Type.Null()], { description: 'The host of the page its visit began on' }),
});

/** The site page's check (beyond the interface): when the project's snippet last sent an event. */
function lastEventRoute(fastify: FastifyInstance, status: SiteStatus): void {
  fastify.get(
    '/api/v1.7/app/:appId/site/last-event',
    {
      config: { project: 'manager' },
      schema: {
        tags: ['Projects'],
        summary: "When the project's site snippet last sent an event, and from which host (Master/Admin)",
        description: 'docs/site-tracking.md, "Checking the installation". Beyond the interface.',
        params: Type.Object({ appId: Type.String({ maxLength: 64 }) }),
        response: businessResponses(LastEvent),
      },
    },
    async (request) => ok(await status.lastEvent(actorOf(request))),
  );
}
