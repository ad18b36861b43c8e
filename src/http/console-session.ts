import type { FastifyReply, FastifyRequest } from 'fastify';
import { setCookie } from './cookies.ts';
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
/**
 * The console's member pass (`accounts.memberPass`): sent only to the share-link viewer, which then
 * does not count a signed-in member opening a link as a viewer. It grants nothing else.
 */
export const MEMBER_PASS_COOKIE = 'rapport_member';
const MEMBER_PASS_PATH = '/l';

/**
 * Beside the session cookie, a marker the console's script reads (`rapport_signed_in=1`, for the
 * console's pages only): it holds nothing secret and grants nothing, and spares a signed-out page the
 * refresh call that could only be refused.
 */
export const SIGNED_IN_COOKIE = 'rapport_signed_in';
const SIGNED_IN_PATH = '/console';

function signedInMarker(request: FastifyRequest, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SIGNED_IN_COOKIE}=${maxAgeSeconds > 0 ? '1' : ''}; Path=${SIGNED_IN_PATH}; Max-Age=${maxAgeSeconds}; SameSite=Strict${secure}`;
}

/** The console's session cookie: HttpOnly, SameSite=Strict, Secure when the page came over HTTPS. */
function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${encodeURIComponent(value)}; Path=${SESSION_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, refreshToken: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', [cookie(request, refreshToken, maxAgeSeconds), signedInMarker(request, maxAgeSeconds)]);
  // The answer carries a token: never stored by a cache.
  reply.header('cache-control', 'no-store');
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', [cookie(request, '', 0), signedInMarker(request, 0)]);
  setMemberPassCookie(request, reply, '', 0);
  reply.header('cache-control', 'no-store');
}

/** The member pass: HttpOnly, SameSite=Lax (a link opened from a chat while signed in is not counted either). */
export function setMemberPassCookie(request: FastifyRequest, reply: FastifyReply, pass: string, maxAgeSeconds: number): void {
  setCookie(reply, MEMBER_PASS_COOKIE, pass, { path: MEMBER_PASS_PATH, maxAgeSeconds, secure: request.protocol === 'https' });
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

/** Starts a console session from tokens just issued (sign-in, refresh, sign-up): what the answer carries and the cookies beside it. */
export async function startConsoleSession(
  request: FastifyRequest,
  reply: FastifyReply,
  tokens: { access_token: string; refresh_token?: string; expires_in: number },
  session: { memberPass: (accessToken: string, expiresIn: number) => Promise<string>; refreshTokenTtl: number },
): Promise<{ access_token: string; token_type: string; expires_in: number }> {
  if (tokens.refresh_token !== undefined) setSessionCookie(request, reply, tokens.refresh_token, session.refreshTokenTtl);
  else reply.header('cache-control', 'no-store');
  setMemberPassCookie(request, reply, await session.memberPass(tokens.access_token, tokens.expires_in), tokens.expires_in);
  return { access_token: tokens.access_token, token_type: 'bearer', expires_in: tokens.expires_in };
}
