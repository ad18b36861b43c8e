import { ApiError, createRapportClient, failureOf } from '@rapport/sdk';

/**
 * The console's session (docs/console.md, Signing in). The access token lives in this module's memory
 * only; the refresh token is in an HttpOnly cookie that only the session endpoints receive, so no
 * script can read it. A page load restores the session from the cookie; the access token is renewed
 * a minute before it expires, and at once when the server refuses it.
 */

interface ConsoleToken {
  access_token: string;
  expires_in: number;
}

/** Renew this long before the access token expires. */
const RENEW_MARGIN_MS = 60_000;

let accessToken: string | undefined;
let renewTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<string | undefined> | null = null;
const listeners = new Set<() => void>();

// The session calls carry no token; they are same-origin, so the browser sends the cookie.
const sessionApi = createRapportClient({ baseUrl: window.location.origin });

function changed(): void {
  for (const listener of listeners) listener();
}

function adopt(token: ConsoleToken): string {
  accessToken = token.access_token;
  clearTimeout(renewTimer);
  // setTimeout holds at most 2^31-1 ms (24.8 days); an access token lasts 7.
  const delay = Math.min(Math.max(token.expires_in * 1000 - RENEW_MARGIN_MS, 10_000), 2 ** 31 - 1);
  renewTimer = setTimeout(() => void refresh(), delay);
  changed();
  return token.access_token;
}

function drop(): void {
  const had = accessToken !== undefined;
  accessToken = undefined;
  clearTimeout(renewTimer);
  if (had) changed();
}

async function tokenFrom(result: { data?: unknown; error?: unknown; response: Response }): Promise<ConsoleToken> {
  const failure = failureOf(result.error ?? result.data, result.response.status);
  if (failure) throw failure;
  if (!result.response.ok || result.data === undefined)
    throw new ApiError('http_error', `HTTP ${result.response.status}`, result.response.status);
  return result.data as ConsoleToken;
}

/** The server's marker beside the session cookie (src/http/console-session.ts): absent, there is no session to restore. */
const SIGNED_IN_MARKER = 'rapport_signed_in=1';
const markedSignedIn = () => document.cookie.split(';').some((c) => c.trim() === SIGNED_IN_MARKER);
/** A refused session: the marker goes too, so the next page load does not ask again. */
const unmark = () => {
  document.cookie = 'rapport_signed_in=; Path=/console; Max-Age=0; SameSite=Strict';
};

/** A new access token from the session cookie, or undefined when there is no session (any more). */
function refresh(): Promise<string | undefined> {
  refreshing ??= (async () => {
    try {
      const token = await tokenFrom(await sessionApi.POST('/svcuser/console/session/refresh'));
      return adopt(token);
    } catch (err) {
      // A network failure keeps the token we have; a refusal ends the session.
      if (err instanceof ApiError) {
        drop();
        unmark();
      }
      return undefined;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

export const session = {
  token: (): string | undefined => accessToken,
  signedIn: (): boolean => accessToken !== undefined,
  refresh,

  /** Restores the session of a page that was just loaded; true when there is one. */
  async restore(): Promise<boolean> {
    if (!markedSignedIn()) return false;
    return (await refresh()) !== undefined;
  },

  async signIn(username: string, password: string): Promise<void> {
    adopt(await tokenFrom(await sessionApi.POST('/svcuser/console/session', { body: { username, password } })));
  },

  async signUp(fields: { phoneNum?: string; email?: string; password: string; nickname?: string; setupCode?: string }): Promise<void> {
    adopt(await tokenFrom(await sessionApi.POST('/svcuser/console/signup', { body: fields })));
  },

  /** Signs up through an invitation's link (docs/console.md): the account joins its project; answers the project's id. */
  async signUpInvited(fields: { token: string; password: string; nickname?: string }): Promise<string> {
    const result = await sessionApi.POST('/svcuser/console/invitation-signup', { body: fields });
    const token = (await tokenFrom(result)) as ConsoleToken & { app_id: string };
    adopt(token);
    return token.app_id;
  },

  /** Revokes the session on the server (refresh and access token) and forgets it here. */
  async signOut(): Promise<void> {
    const token = accessToken;
    drop();
    await sessionApi
      .DELETE('/svcuser/console/session', { headers: token ? { Authorization: `Bearer ${token}` } : {} })
      .catch(() => undefined);
  },

  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
