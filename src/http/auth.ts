import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccessService, Actor } from '../modules/access/service.ts';
import type { AccountsService, UserRow } from '../modules/accounts/service.ts';

/**
 * Who may call a route: `none` (token calls, docs, health), `any` (a valid token, even of an
 * account not yet activated: user info and update) or `active` (every business endpoint).
 */
export type AuthMode = 'none' | 'any' | 'active';

/**
 * What the caller must be in the project its path names (`:appId`), checked with the token, before
 * the body is read: `member` (the default of every such route), `manager` (Master or Admin),
 * `history` (a member, refused with NEED_AUTH as the history endpoints are: docs/interface.md §6) or
 * `none` (the route decides: the caller's own membership endpoints, ingestion by project secret).
 * The refusal is the access service's, the same the route's service would give.
 */
export type ProjectAccess = 'member' | 'manager' | 'history' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    project?: ProjectAccess;
  }
  interface FastifyRequest {
    /** The authenticated caller; set on every route whose auth mode is not `none`. */
    user: UserRow;
    /**
     * The caller's standing in the project the path names (who, which project, which role), set by
     * the auth hook on every `:appId` route whose `config.project` is not `none`.
     */
    actor: Actor | null;
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

/** The project a route's path names, when it must be checked before the body: undefined for none. */
function projectToCheck(request: FastifyRequest): { appId: string; access: ProjectAccess } | undefined {
  const access = request.routeOptions.config?.project ?? 'member';
  if (access === 'none' || !request.routeOptions.url?.includes(':appId')) return undefined;
  const appId = (request.params as { appId?: unknown } | undefined)?.appId;
  // An id no project can have is left to the route's validation, which refuses it without asking the database.
  if (typeof appId !== 'string' || appId.length > 64 || appId.includes('\u0000')) return undefined;
  return { appId, access };
}

/**
 * The one place a request's token is checked, and the caller's standing in the project the path
 * names. Runs before the body is read, so a non-member's body is refused unread. A valid token's
 * request counts against the token's rate limit; a refused one against its client address's
 * (rate-limits.ts), so made-up tokens buy no fresh budget.
 */
export function registerAuth(app: FastifyInstance, accounts: AccountsService, access: AccessService): void {
  app.decorateRequest('user', null as unknown as UserRow);
  app.decorateRequest('actor', null);
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
    const project = projectToCheck(request);
    if (project === undefined) return;
    request.actor =
      project.access === 'manager'
        ? await access.manager(project.appId, user.id)
        : await access.membership(project.appId, user.id, project.access === 'history' ? 'history' : 'api');
  });
}

/**
 * The actor the auth hook resolved for this request. A route that calls it must name `:appId` and
 * leave `config.project` at member, manager or history; anything else is a wiring mistake.
 */
export function actorOf(request: FastifyRequest): Actor {
  if (request.actor === null) throw new Error(`${request.routeOptions.url ?? 'route'} has no resolved actor`);
  return request.actor;
}
