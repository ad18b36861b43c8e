import type { AppContext } from '../../context.ts';
import { accessDenied, forbidden } from '../../http/errors.ts';
import { randomToken, sha256 } from '../../lib/secrets.ts';
import { deriveKey, signValue, verifyValue } from '../../lib/signed-tokens.ts';
import { type Db, type UserRow, accountsRepository as repo } from './repository.ts';

export const ACCESS_TOKEN_TTL = 604800;

export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  token_type: 'bearer';
  expires_in: number;
}

/** The caller of a business endpoint, resolved from its access token. */
export interface AuthUser {
  id: number;
  status: number;
}

export interface TokensDeps {
  /** Notes that a user was seen (the profile service's presence). */
  seen: (userId: number) => Promise<void>;
  /** The server's secret of a name (the admin service's). */
  serverSecret: (name: string) => Promise<Buffer>;
}

/**
 * Access and refresh tokens, for every caller that holds one: the auth hook and the services that
 * resolve a bearer token (`authenticate`, `assertActive`), the grants that issue them, the revoke
 * call, the clients service (a revoked client's tokens go with it), and the console's member pass.
 */
export function createTokensService(ctx: AppContext, deps: TokensDeps) {
  const db = ctx.database.db;
  const clock = ctx.clock;
  let passKey: Promise<Buffer> | null = null;
  const memberPassKey = () =>
    (passKey ??= deps
      .serverSecret('console')
      .then((raw) => deriveKey(raw, 'member pass'))
      .catch((err: unknown) => {
        passKey = null;
        throw err;
      }));

  /** Resolves a bearer token to its user, or throws 403 access_denied. */
  async function authenticate(token: string | undefined): Promise<UserRow> {
    if (token === undefined || token === '') throw accessDenied('Bearer token not found');
    const entry = await repo.tokenOwner(ctx.database, token);
    if (entry === undefined || entry.expiresAt <= clock.now()) throw accessDenied('The access token is invalid or has expired');
    // A copy per request: handlers may hold it while the cache moves on.
    const user = { ...entry.user };
    await deps.seen(user.id);
    return user;
  }

  return {
    /** A new access token of the user through the client, and a refresh token with it when asked. */
    async issue(userId: number, clientId: string, withRefresh: boolean): Promise<TokenResponse> {
      const now = clock.now();
      const access = randomToken(32);
      const expires = { created_at: now, user_id: userId, client_id: clientId };
      await repo.insertAccessToken(db, { token_hash: sha256(access), expires_at: now + ACCESS_TOKEN_TTL * 1000, ...expires });
      if (!withRefresh) return { access_token: access, token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL };
      const refresh = randomToken(32);
      await repo.insertRefreshToken(db, { token_hash: sha256(refresh), expires_at: now + ctx.config.refreshTokenTtl * 1000, ...expires });
      return { access_token: access, refresh_token: refresh, token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL };
    },

    /**
     * Revokes an access or a refresh token issued through `clientId` (RFC 7009). An unknown token,
     * or one of another client, changes nothing and is not an error, so the answer tells nothing.
     */
    async revoke(token: string, clientId: string, hint: string | undefined): Promise<void> {
      const hash = sha256(token);
      const order =
        hint === 'refresh_token' ? (['refresh_tokens', 'access_tokens'] as const) : (['access_tokens', 'refresh_tokens'] as const);
      for (const table of order) if (await repo.deleteToken(db, table, hash, clientId)) return;
    },

    /** Deletes every token issued through a client, in the caller's transaction (the client is being revoked). */
    async dropClientTokens(trx: Db, clientId: string): Promise<void> {
      await repo.deleteClientTokens(trx, clientId);
    },

    authenticate,

    /** Business endpoints need an activated, enabled account (docs/interface.md §5). */
    assertActive(user: AuthUser): void {
      if (user.status === 0) throw forbidden('account not activated: log in with the password grant first');
      if (user.status === 2) throw forbidden('account disabled');
    },

    /**
     * The console's member pass for the access token it is given: a value signed by the server naming
     * the token's user, valid as long as the token. The share-link viewer reads it (docs/links.md) so
     * that members opening links from the console are not counted as viewers; it grants nothing else.
     */
    async memberPass(accessToken: string, ttlSeconds: number): Promise<string> {
      const user = await authenticate(accessToken);
      return signValue(await memberPassKey(), { u: user.id, e: Math.floor(clock.now() / 1000) + ttlSeconds });
    },

    /** The user a member pass names, while it is valid and the account is enabled; else null. */
    async userOfMemberPass(pass: string | undefined): Promise<number | null> {
      if (pass === undefined || pass === '') return null;
      const value = verifyValue(await memberPassKey(), pass) as { u?: unknown; e?: unknown } | null;
      if (value === null || typeof value.u !== 'number' || typeof value.e !== 'number' || value.e < clock.now() / 1000) return null;
      const user = await repo.findUserById(db, value.u);
      return user === undefined || user.status === 2 ? null : user.id;
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
