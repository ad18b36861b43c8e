import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccountsService, UserRow } from '../modules/accounts/service.ts';

/**
 * Who may call a route: `none` (token calls, docs, health), `any` (a valid token, even of an
 * account not yet activated: user info and update) or `active` (every business endpoint).
 */
export type AuthMode = 'none' | 'any' | 'active';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    /** The authenticated caller; set on every route whose auth mode is not `none`. */
    user: UserRow;
  }
}

/** The access token from `Authorization: Bearer`, else the `access_token` query parameter. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined && /^bearer\s/i.test(header)) return header.slice(7).trim();
  const q = (request.query as Record<string, unknown> | undefined)?.access_token;
  return typeof q === 'string' ? q : Array.isArray(q) ? String(q[0]) : undefined;
}

/** A route's auth mode. Business paths default to the strictest, so a route that forgets to say is not left open. */
export function authModeOf(request: FastifyRequest): AuthMode {
  return request.routeOptions.config?.auth ?? (request.routeOptions.url?.startsWith('/api/') ? 'active' : 'none');
}

/**
 * The one place a request's token is checked. Runs before the body is read. A valid token's
 * request counts against the token's rate limit; a refused one against its client address's
 * (rate-limits.ts), so made-up tokens buy no fresh budget.
 */
export function registerAuth(app: FastifyInstance, accounts: AccountsService): void {
  app.decorateRequest('user', null as unknown as UserRow);
  app.addHook('onRequest', async (request, reply) => {
    const mode = authModeOf(request);
    if (mode === 'none') return;
    const token = bearerToken(request);
    const user = await app.limits.countAs(
      request,
      reply,
      () => accounts.authenticate(token),
      (u) => ({ user: u.id }),
    );
    if (mode === 'active') accounts.assertActive(user);
    request.user = user;
  });
}
