import type { FastifyInstance } from 'fastify';
import { sendNotFound } from './not-found.ts';

/**
 * What a route is on a project's share domain (docs/projects.md, "Share domain"):
 * - `serve`: served, for that project only: the route hands `request.shareProject` to its service,
 *   which answers another project's link, mail token or site key as it answers an unknown one;
 * - `appId`: served when the path's `:appId` is that project (its logo);
 * - absent (every other route: the API, the console, the docs, health): 404, as an unknown path.
 */
export type ShareHostRule = 'serve' | 'appId';

declare module 'fastify' {
  interface FastifyContextConfig {
    shareHost?: ShareHostRule;
  }
  interface FastifyRequest {
    /**
     * The project whose share domain the request's host is (`Host`, or with TRUST_PROXY the
     * trusted proxy's `X-Forwarded-Host`); null on the server's own host and on any other host.
     */
    shareProject: string | null;
  }
}

/**
 * Requests to a project's share domain reach that project's public pages and nothing else: the
 * viewer of its links, its campaign mails' tracking and unsubscribe addresses, its site snippet
 * and its logo. Every other route answers the 404 page, counted against the address's budget,
 * before anything else looks at the request (its token, its body). `projectOfHost` is the projects
 * service's look-up, an in-process map: no read in steady state. Registered before CORS and the
 * token check.
 */
export function registerShareHosts(app: FastifyInstance, projectOfHost: (host: string) => Promise<string | null>): void {
  app.decorateRequest('shareProject', null);
  app.addHook('onRequest', async (request, reply) => {
    // Fastify's `host`: the Host header, or the last X-Forwarded-Host when the connection is a trusted proxy's.
    const project = await projectOfHost(request.host);
    if (project === null) return;
    request.shareProject = project;
    const rule = request.routeOptions.config?.shareHost;
    if (rule === 'serve') return;
    if (rule === 'appId' && (request.params as { appId?: unknown } | undefined)?.appId === project) return;
    await app.limits.count(request, reply, 'ip');
    return sendNotFound(request, reply);
  });
}
