import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from './errors.ts';

/**
 * The web console's session, as HTTP sees it: the refresh token in a cookie only the session
 * endpoints receive and no script can read, and the check that a session call comes from the
 * console's own page. Decided in docs/adr/0021-console-sign-in.md.
 */

/** The cookie holding the console's refresh token. */
export const SESSION_COOKIE = 'rapport_console';
/** The only path the browser sends the cookie to: the session endpoints. */
export const SESSION_PATH = '/svcuser/console/session';

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The console's session cookie: HttpOnly, SameSite=Strict, Secure when the page came over HTTPS. */
function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${encodeURIComponent(value)}; Path=${SESSION_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, refreshToken: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', cookie(request, refreshToken, maxAgeSeconds));
  // The answer carries a token: never stored by a cache.
  reply.header('cache-control', 'no-store');
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookie(request, '', 0));
  reply.header('cache-control', 'no-store');
}

/**
 * Refuses a session call that does not come from the console's origin: the request's `Origin` must be
 * the origin the request was made to (scheme and Host, as Fastify reads them behind TRUST_PROXY) or
 * that of PUBLIC_BASE_URL. Browsers send `Origin` with every POST and DELETE, and a page elsewhere
 * cannot forge it; a request without one (not a browser) is refused too.
 */
export function assertConsoleOrigin(request: FastifyRequest, publicBaseUrl: string): void {
  const origin = request.headers.origin;
  const own = `${request.protocol}://${request.host}`;
  if (origin !== undefined && (origin === own || origin === new URL(publicBaseUrl).origin)) return;
  throw forbidden("The console's session calls are accepted only from the console's own origin");
}
