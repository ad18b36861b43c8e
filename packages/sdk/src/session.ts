/**
 * Tokens for scripts and servers: log in with the password grant under an OAuth client's id and
 * secret, keep the access token, and get a new one with the refresh grant when it runs out (ahead of
 * its `expires_in`, and again when the server refuses it as `access_denied`). A browser that keeps
 * its session in a cookie (the console) does not need this.
 */
import { ApiError, type RapportClient, type RapportClientOptions, createRapportClient } from './client.js';

export interface PasswordLogin {
  /** The server's base URL, e.g. `https://rapport.example.com`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** A mobile number or an e-mail address. */
  username: string;
  password: string;
  /** Seconds before `expires_in` runs out when the token is renewed ahead (default 60). */
  renewAheadSeconds?: number;
  fetch?: typeof fetch;
}

interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  token_type: string;
}

/** A logged-in session: the current access token, renewed when it runs out. */
export class TokenSession {
  private accessToken: string | undefined;
  private refreshToken: string | undefined;
  private expiresAt = 0;
  private pending: Promise<string> | null = null;
  private readonly doFetch: typeof fetch;

  constructor(private readonly login: PasswordLogin) {
    this.doFetch = login.fetch ?? fetch;
  }

  private async grant(fields: Record<string, string>): Promise<string> {
    const basic = btoa(`${this.login.clientId}:${this.login.clientSecret}`);
    const res = await this.doFetch(new URL('/svcuser/oauth2/access_token', this.login.baseUrl), {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const body = (await res.json().catch(() => null)) as (TokenAnswer & { error?: string; error_description?: string }) | null;
    if (!res.ok || body === null || typeof body.access_token !== 'string') {
      throw new ApiError(body?.error ?? 'http_error', body?.error_description ?? `HTTP ${res.status}`, res.status, body);
    }
    this.accessToken = body.access_token;
    // The refresh grant answers no new refresh token: the one from the log-in stays.
    if (body.refresh_token) this.refreshToken = body.refresh_token;
    this.expiresAt = Date.now() + body.expires_in * 1000;
    return body.access_token;
  }

  /** Logs in with the password grant (done by `token()` when needed). */
  logIn(): Promise<string> {
    return this.once(() => this.grant({ grant_type: 'password', username: this.login.username, password: this.login.password }));
  }

  /** A new access token by the refresh grant; by the password grant when the refresh token is refused. */
  renew(): Promise<string> {
    return this.once(async () => {
      if (this.refreshToken === undefined)
        return this.grant({ grant_type: 'password', username: this.login.username, password: this.login.password });
      try {
        return await this.grant({ grant_type: 'refresh_token', refresh_token: this.refreshToken });
      } catch (err) {
        if (!(err instanceof ApiError) || err.httpStatus >= 500) throw err;
        this.refreshToken = undefined;
        return this.grant({ grant_type: 'password', username: this.login.username, password: this.login.password });
      }
    });
  }

  /** The access token to send now: logged in or renewed first when there is none or it is about to run out. */
  async token(): Promise<string> {
    const ahead = (this.login.renewAheadSeconds ?? 60) * 1000;
    if (this.accessToken === undefined) return this.logIn();
    if (Date.now() >= this.expiresAt - ahead) return this.renew();
    return this.accessToken;
  }

  /** The current token without renewing (undefined before the first log-in). */
  current(): string | undefined {
    return this.accessToken;
  }

  /** One log-in or renewal at a time: concurrent calls share it. */
  private once(run: () => Promise<string>): Promise<string> {
    this.pending ??= run().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }
}

/**
 * A client that logs in with the password grant and renews its token by itself:
 * `const { client } = await connect({ baseUrl, clientId, clientSecret, username, password })`.
 */
export async function connect(
  login: PasswordLogin,
  options: Omit<RapportClientOptions, 'accessToken' | 'refreshAccessToken' | 'baseUrl'> = {},
): Promise<{ client: RapportClient; session: TokenSession }> {
  const session = new TokenSession(login);
  await session.logIn();
  const client = createRapportClient({
    ...options,
    ...(login.fetch ? { fetch: login.fetch } : {}),
    baseUrl: login.baseUrl,
    accessToken: () => session.current(),
    refreshAccessToken: () => session.renew(),
  });
  // Renewed ahead of expiry before each call (the 403 retry covers a token revoked meanwhile).
  client.use({
    async onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${await session.token()}`);
      return request;
    },
  });
  return { client, session };
}
