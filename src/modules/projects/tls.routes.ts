import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { sendNotFound } from '../../http/not-found.ts';
import type { ProjectsService } from './service.ts';

/** Addresses of the machine itself and of private networks: where a TLS proxy beside the server asks from. */
const NEARBY = new Set(['loopback', 'private', 'uniqueLocal', 'linkLocal']);

/**
 * Whether the request comes straight from a loopback or private address: no proxy in between
 * (a request a proxy forwarded carries `X-Forwarded-For` or `Forwarded`, and without TRUST_PROXY its
 * address would be the proxy's own).
 */
function askedNearby(request: FastifyRequest): boolean {
  if (request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined) return false;
  if (!ipaddr.isValid(request.ip)) return false;
  return NEARBY.has(ipaddr.process(request.ip).range());
}

/**
 * `GET /tls/ask?domain=`: Caddy's on-demand TLS `ask` (docs/operations.md, "Share domains"). 200
 * when a project claims the domain, the 404 page otherwise, and to callers it does not take
 * (TLS_ASK_FROM=private, the default: straight from loopback or a private address). It tells whether
 * a domain is claimed and nothing else; counted against the caller's address budget of such
 * questions (RATE_LIMIT_TLS_ASK), apart from its other requests: Caddy asks for every name it does not
 * hold in memory, so a restart asks for each again.
 */
export async function tlsRoutes(fastify: FastifyInstance, opts: { projects: ProjectsService; from: 'private' | 'any' }): Promise<void> {
  const { projects, from } = opts;
  fastify.get(
    '/tls/ask',
    {
      config: { limitBy: 'caller' },
      schema: {
        tags: ['Operations'],
        summary: "Whether a project claims a domain (Caddy's on-demand TLS ask): 200, or 404",
        description:
          'For the TLS proxy in front of the server: it reveals whether a share domain is claimed by a project, nothing else. ' +
          'With TLS_ASK_FROM=private (the default) only requests straight from loopback or a private address are answered; others get 404.',
        querystring: Type.Object({ domain: Type.Optional(Type.String({ maxLength: 300 })) }),
        security: [],
      },
    },
    async (request, reply) => {
      await fastify.limits.count(request, reply, { tlsAsk: request.ip });
      const domain = (request.query as { domain?: string }).domain;
      if ((from === 'private' && !askedNearby(request)) || domain === undefined || !(await projects.claimed(domain))) {
        return sendNotFound(request, reply);
      }
      return reply.code(200).type('text/plain; charset=utf-8').header('Cache-Control', 'no-store').send('claimed\n');
    },
  );
}
