import type { AppContext } from '../../context.ts';
import { isUniqueViolation, uniqueViolationTarget } from '../../db/index.ts';
import { accessDenied, failure, fieldFailure, forbidden, oauthError, tooManyRequests } from '../../http/errors.ts';
import { isEmail, isPhone } from '../../lib/formats.ts';
import {
  INSECURE_FAST_SCRYPT,
  OWASP_SCRYPT,
  dummyPasswordHash,
  hashPassword,
  randomDigits,
  randomToken,
  safeEqual,
  sha256,
  verifyPassword,
  hashedAt,
} from '../../lib/secrets.ts';
import { deriveKey, signValue, verifyValue } from '../../lib/signed-tokens.ts';
import { CONSOLE_CLIENT_ID, type ClientsService } from '../clients/service.ts';
import { type PlatformUser, toPlatformUser } from './mapper.ts';
import type { CodePurpose } from './code-sender.ts';
import { type Db, type NewUser, type UserRow, accountsRepository as repo } from './repository.ts';

export type { UserRow };

export const ACCESS_TOKEN_TTL = 604800;
const CODE_TTL_MS = 10 * 60 * 1000;
const CODE_RESEND_MS = 60 * 1000;
const CODE_MAX_ATTEMPTS = 5;
const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
const THROTTLE_MAX_FAILURES = 10;
const LAST_SEEN_RESOLUTION_MS = 60 * 1000;

export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  token_type: 'bearer';
  expires_in: number;
}

export interface ClientCredentials {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
}

export interface RegisterInput {
  phoneNum?: string | undefined;
  email?: string | undefined;
  password?: string | undefined;
  channel?: number | undefined;
  nickname?: string | undefined;
  sex?: number | undefined;
  city?: string | undefined;
  province?: string | undefined;
  code?: string | undefined;
}

export interface UpdateUserInput {
  user_id?: number | undefined;
  name?: string | undefined;
  sex?: number | undefined;
  city?: string | undefined;
  province?: string | undefined;
  company?: string | undefined;
  industry?: string | undefined;
  position?: string | undefined;
  email?: string | undefined;
}

/** The caller of a business endpoint, resolved from its access token. */
export interface AuthUser {
  id: number;
  status: number;
}

const REGISTER_CHANNELS = new Set([3, 4, 5, 6, 7]);

const codeNotCorrect = () => oauthError('code_not_correct', 'The verification code is incorrect or has expired');

function blank(v: string | undefined): v is undefined {
  return v === undefined || v.trim() === '';
}

/** Accounts, OAuth tokens and verification codes (docs/interface.md §5). */
export function createAccountsService(ctx: AppContext, clients: ClientsService) {
  const db = ctx.database.db;
  const clock = ctx.clock;
  const cost = ctx.config.insecureFastHash ? INSECURE_FAST_SCRYPT : OWASP_SCRYPT;
  // user id → when this process last wrote the user's presence.
  const touched = new Map<number, number>();

  async function issueTokens(userId: number, clientId: string, withRefresh: boolean): Promise<TokenResponse> {
    const now = clock.now();
    const access = randomToken(32);
    await repo.insertAccessToken(db, {
      token_hash: sha256(access),
      user_id: userId,
      client_id: clientId,
      expires_at: now + ACCESS_TOKEN_TTL * 1000,
      created_at: now,
    });
    const out: TokenResponse = { access_token: access, token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL };
    if (withRefresh) {
      const refresh = randomToken(32);
      await repo.insertRefreshToken(db, {
        token_hash: sha256(refresh),
        user_id: userId,
        client_id: clientId,
        expires_at: now + ctx.config.refreshTokenTtl * 1000,
        created_at: now,
      });
      return { access_token: access, refresh_token: refresh, token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL };
    }
    return out;
  }

  function codeTarget(input: { phoneNum?: string | undefined; email?: string | undefined }): string {
    return input.email !== undefined ? `email:${input.email.toLowerCase()}` : `phone:${input.phoneNum ?? ''}`;
  }

  /** Exactly one of phoneNum / email, well formed. */
  function identifier(input: { phoneNum?: string | undefined; email?: string | undefined }) {
    const phoneNum = blank(input.phoneNum) ? undefined : input.phoneNum.trim();
    const email = blank(input.email) ? undefined : input.email.trim();
    if ((phoneNum === undefined) === (email === undefined)) {
      throw oauthError('invalid_request', 'Exactly one of phoneNum or email is required');
    }
    if (phoneNum !== undefined && !isPhone(phoneNum)) throw oauthError('invalid_request', 'phoneNum is not a valid mobile number');
    if (email !== undefined && !isEmail(email)) throw oauthError('invalid_request', 'email is not a valid e-mail address');
    return { phoneNum, email };
  }

  /** Whether `code` is the live code of `target` for `purpose`; every try counts, and a code allows five. */
  async function codeMatches(target: string, purpose: CodePurpose, code: string | undefined): Promise<boolean> {
    const hash = await repo.claimCodeAttempt(db, target, purpose, clock.now(), CODE_MAX_ATTEMPTS);
    return hash !== undefined && code !== undefined && safeEqual(hash, sha256(`${target}:${code.trim()}`));
  }

  async function checkCode(target: string, code: string | undefined): Promise<void> {
    // Deleted by whoever uses it: of two uses at once, one passes.
    if (!(await codeMatches(target, 'register', code)) || !(await repo.deleteVerificationCode(db, target, 'register'))) {
      throw codeNotCorrect();
    }
  }

  /**
   * Stores a new code of `purpose` for `target` and answers it; HTTP 429 when the target was given
   * one less than a minute ago.
   */
  async function storeCode(target: string, purpose: CodePurpose): Promise<string> {
    const now = clock.now();
    const existing = await repo.findVerificationCode(db, target, purpose);
    if (existing && now - existing.created_at < CODE_RESEND_MS) {
      throw tooManyRequests((existing.created_at + CODE_RESEND_MS - now) / 1000, 'A code was sent less than a minute ago');
    }
    const code = randomDigits(6);
    await repo.upsertVerificationCode(db, {
      target,
      purpose,
      code_hash: sha256(`${target}:${code}`),
      expires_at: now + CODE_TTL_MS,
      created_at: now,
      attempts: 0,
    });
    return code;
  }

  /** A sign-in name (mobile number or e-mail) as the identifier it is; invalid_request when it is neither. */
  function usernameIdentifier(username: string | undefined): { phoneNum?: string | undefined; email?: string | undefined } {
    if (blank(username)) throw oauthError('invalid_request', 'Missing parameter: username');
    const name = username.trim();
    if (name.includes('@') ? !isEmail(name) : !isPhone(name)) {
      throw oauthError('invalid_request', 'username must be a mobile number or an e-mail address');
    }
    return name.includes('@') ? { email: name } : { phoneNum: name };
  }

  /** Validates a registration and makes the new user's row (status 0, not activated); stores nothing. */
  async function newUserRow(input: RegisterInput): Promise<NewUser> {
    const { phoneNum, email } = identifier(input);
    const password = input.password ?? '';
    if (password.length < 8 || password.length > 128) {
      throw oauthError('invalid_request', 'password must be 8 to 128 characters');
    }
    if (input.channel !== undefined && !REGISTER_CHANNELS.has(input.channel)) {
      throw oauthError('invalid_request', 'channel must be one of 3, 4, 5, 6, 7');
    }
    if (input.sex !== undefined && ![0, 1, 2].includes(input.sex)) throw oauthError('invalid_request', 'sex must be 0, 1 or 2');
    for (const [field, value] of [
      ['nickname', input.nickname],
      ['city', input.city],
      ['province', input.province],
    ] as const) {
      if (value !== undefined && value.length > 64) throw oauthError('invalid_request', `${field} must be at most 64 characters`);
    }
    if (ctx.config.requireVerificationCode || !blank(input.code)) {
      await checkCode(codeTarget({ phoneNum, email }), input.code);
    }
    const existing = await repo.findUserByUsername(db, email ?? phoneNum ?? '');
    if (existing) {
      throw email
        ? oauthError('email_existed', 'The e-mail is already registered')
        : oauthError('phone_num_existed', 'The mobile number is already registered');
    }
    const now = clock.now();
    return {
      phone_num: phoneNum ?? null,
      email: email ?? null,
      email_lower: email?.toLowerCase() ?? null,
      password_hash: await hashPassword(password, cost),
      name: blank(input.nickname) ? null : input.nickname.trim(),
      email_status: 0,
      phone_num_status: 0,
      photo_uri: null,
      openid: null,
      unionid: null,
      sex: input.sex ?? null,
      city: blank(input.city) ? null : input.city,
      province: blank(input.province) ? null : input.province,
      company: null,
      position: null,
      industry: null,
      cc_num: Number(randomDigits(8)),
      status: 0,
      channel: input.channel ?? null,
      weixin_nickname: null,
      created_at: now,
      updated_at: now,
    };
  }

  /** Stores a new user's row, in `database` (a transaction) when given. */
  async function insertUser(row: NewUser, database: Db = db): Promise<UserRow> {
    try {
      return await repo.insertUser(database, row);
    } catch (err) {
      // Two concurrent registrations of the same identifier: the database decides.
      if (isUniqueViolation(err)) {
        throw /email/.test(uniqueViolationTarget(err))
          ? oauthError('email_existed', 'The e-mail is already registered')
          : oauthError('phone_num_existed', 'The mobile number is already registered');
      }
      throw err;
    }
  }

  /** Validates a registration and stores the new user (status 0, not activated). */
  async function createUser(input: RegisterInput): Promise<UserRow> {
    return insertUser(await newUserRow(input));
  }

  // The server's own secrets, by name: made once by whichever process asks first, kept in the database
  // so that every process and every server signs and checks alike.
  const secrets = new Map<string, Promise<Buffer>>();
  function serverSecret(name: string): Promise<Buffer> {
    let secret = secrets.get(name);
    if (secret === undefined) {
      secret = repo.serverSecret(db, name, randomToken(32), clock.now()).then((value) => Buffer.from(value, 'base64url'));
      secret.catch(() => secrets.delete(name));
      secrets.set(name, secret);
    }
    return secret;
  }
  let passKey: Promise<Buffer> | null = null;
  const memberPassKey = () =>
    (passKey ??= serverSecret('console')
      .then((raw) => deriveKey(raw, 'member pass'))
      .catch((err: unknown) => {
        passKey = null;
        throw err;
      }));

  /** The console's client, unless the operator revoked it (`rapport client revoke console`). */
  async function consoleClient(): Promise<string> {
    if (!(await clients.isLive(CONSOLE_CLIENT_ID))) throw oauthError('invalid_client', 'The console client is revoked on this server');
    return CONSOLE_CLIENT_ID;
  }

  return {
    /**
     * Client authentication for the token and register calls: HTTP Basic or client_id and
     * client_secret parameters. Returns the client id.
     */
    async authenticateClient(authorization: string | undefined, params: ClientCredentials): Promise<string> {
      let id = params.clientId;
      let secret = params.clientSecret;
      if (authorization !== undefined && /^basic\s/i.test(authorization)) {
        const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        if (colon < 0) throw oauthError('invalid_client', 'Malformed Basic client credentials');
        // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
        try {
          id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
          secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
        } catch {
          throw oauthError('invalid_client', 'Malformed Basic client credentials');
        }
      }
      if (blank(id) || secret === undefined) {
        throw oauthError('invalid_request', 'No client authentication: send an Authorization: Basic header or client_id and client_secret');
      }
      if (!(await clients.verify(id, secret))) throw oauthError('invalid_client', 'Unknown client or wrong client secret');
      return id;
    },

    async register(input: RegisterInput, clientId: string): Promise<TokenResponse> {
      const user = await createUser(input);
      return issueTokens(user.id, clientId, true);
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

    /** The server's secret of this name (random, made once, shared by every process through the database). */
    serverSecret,

    /**
     * The console's member pass for the access token it is given: a value signed by the server naming
     * the token's user, valid as long as the token. The share-link viewer reads it (docs/links.md) so
     * that members opening links from the console are not counted as viewers; it grants nothing else.
     */
    async memberPass(accessToken: string, ttlSeconds: number): Promise<string> {
      const user = await this.authenticate(accessToken);
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

    /** Whether the console may sign someone up: ALLOW_SIGNUP, or no user exists yet (the first run). */
    async signupOpen(): Promise<boolean> {
      return ctx.config.allowSignup || !(await repo.anyUser(db));
    },

    /** What the console asks before it signs anyone in. */
    async serverInfo(version: string): Promise<{ version: string; timeZone: string; signup: boolean }> {
      return { version, timeZone: ctx.config.timeZone, signup: await this.signupOpen() };
    },

    /** The console's password grant, through its own client. */
    async consoleSignIn(username: string, password: string, ip: string): Promise<TokenResponse> {
      return this.passwordGrant(username, password, ip, await consoleClient());
    },

    /** The console's refresh grant: a new access token for the session cookie's refresh token. */
    async consoleRefresh(refreshToken: string | undefined): Promise<TokenResponse> {
      if (refreshToken === undefined || refreshToken === '') throw oauthError('invalid_grant', 'No console session: sign in');
      return this.refreshGrant(refreshToken, await consoleClient());
    },

    /** Ends a console session: its refresh token and the access token it holds stop working. */
    async consoleSignOut(refreshToken: string | undefined, accessToken: string | undefined): Promise<void> {
      if (refreshToken) await this.revoke(refreshToken, CONSOLE_CLIENT_ID, 'refresh_token');
      if (accessToken) await this.revoke(accessToken, CONSOLE_CLIENT_ID, 'access_token');
    },

    /**
     * Sign-up from the console, when it is open (signupOpen): registers the user and signs them in at
     * once (the account is activated, as by a first password grant).
     */
    async consoleSignUp(input: RegisterInput): Promise<TokenResponse> {
      const closed = () => oauthError('signup_closed', 'Sign-up is closed on this server');
      if (!(await this.signupOpen())) throw closed();
      const clientId = await consoleClient();
      const row: NewUser = { ...(await newUserRow(input)), status: 1 };
      const user = ctx.config.allowSignup
        ? await insertUser(row)
        : // Open only because no user exists yet: exactly one sign-up may make the first account,
          // however many processes race. Each takes the claim row's lock first (others wait for it
          // to commit), then looks for a user: the first finds none, every later one finds it.
          await db.transaction().execute(async (trx) => {
            await repo.lockFirstAccountClaim(trx, clock.now());
            if (await repo.anyUser(trx)) throw closed();
            return insertUser(row, trx);
          });
      return issueTokens(user.id, clientId, true);
    },

    async issueVerificationCode(input: { phoneNum?: string | undefined; email?: string | undefined }): Promise<{ expires_in: number }> {
      const id = identifier(input);
      const code = await storeCode(codeTarget(id), 'register');
      await ctx.codeSender.send(id.email ? { email: id.email } : { phoneNum: id.phoneNum ?? '' }, code, 'register');
      return { expires_in: CODE_TTL_MS / 1000 };
    },

    /**
     * The console's "forgot password": a reset code for the account whose mobile number or e-mail
     * `username` is. The answer, and the work before it, are the same whether or not such an account
     * exists (or is disabled): a code is stored for the target either way (so the minute between two
     * codes holds either way), and only an enabled account's is sent, after the answer, so that the
     * time a delivery takes tells nothing either.
     */
    async consolePasswordCode(username: string | undefined): Promise<{ expires_in: number }> {
      await consoleClient();
      const id = usernameIdentifier(username);
      const target = codeTarget(id);
      const user = await repo.findUserByUsername(db, id.email ?? id.phoneNum ?? '');
      const code = await storeCode(target, 'reset');
      if (user !== undefined && user.status !== 2) {
        // To the address on the account, as it was written there.
        const to = id.email ? { email: user.email ?? id.email } : { phoneNum: user.phone_num ?? id.phoneNum ?? '' };
        ctx.codeSender.send(to, code, 'reset').catch((err: unknown) => {
          ctx.logger.error({ err, userId: user.id }, 'the password reset code could not be sent');
        });
      }
      // Otherwise the stored code goes to nobody: no one can use it.
      return { expires_in: CODE_TTL_MS / 1000 };
    },

    /**
     * The console's password reset: the reset code of the account `username` names sets its new
     * password, once. A wrong, used or expired code, an unknown account and a disabled one all answer
     * `code_not_correct`. Every access and refresh token of the user is deleted with the change, so
     * every session of theirs ends; their failed log-ins are forgotten.
     */
    async consolePasswordReset(input: { username?: string | undefined; code?: string | undefined; password?: string | undefined }) {
      await consoleClient();
      const id = usernameIdentifier(input.username);
      if (blank(input.code)) throw oauthError('invalid_request', 'Missing parameter: code');
      const password = input.password ?? '';
      if (password.length < 8 || password.length > 128) throw oauthError('invalid_request', 'password must be 8 to 128 characters');
      const target = codeTarget(id);
      if (!(await codeMatches(target, 'reset', input.code))) throw codeNotCorrect();
      const user = await repo.findUserByUsername(db, id.email ?? id.phoneNum ?? '');
      if (user === undefined || user.status === 2) {
        await repo.deleteVerificationCode(db, target, 'reset');
        throw codeNotCorrect();
      }
      const passwordHash = await hashPassword(password, cost);
      const now = clock.now();
      const revoked = await db.transaction().execute(async (trx) => {
        // Used once: of two resets with one code at the same time, only one gets here.
        if (!(await repo.deleteVerificationCode(trx, target, 'reset'))) throw codeNotCorrect();
        await repo.updateUser(trx, user.id, { password_hash: passwordHash, updated_at: now });
        await repo.clearFailures(
          trx,
          [user.phone_num, user.email_lower].flatMap((name) => (name === null ? [] : [`user:${name.toLowerCase()}`])),
        );
        return repo.deleteUserTokens(trx, user.id);
      });
      ctx.logger.info({ userId: user.id, tokensRevoked: revoked }, 'password reset with a verification code');
      return {};
    },

    async passwordGrant(username: string, password: string, ip: string, clientId: string): Promise<TokenResponse> {
      const now = clock.now();
      const keys = [`user:${username.trim().toLowerCase()}`, `ip:${ip}`];
      for (const key of keys) {
        const recent = await repo.recentFailures(db, key, now - THROTTLE_WINDOW_MS, THROTTLE_MAX_FAILURES);
        if (recent.length >= THROTTLE_MAX_FAILURES) {
          const oldest = recent[recent.length - 1] ?? now;
          throw tooManyRequests((oldest + THROTTLE_WINDOW_MS - now) / 1000, 'Too many failed log-in attempts; try again later');
        }
      }
      const user = await repo.findUserByUsername(db, username.trim());
      const ok = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash(cost)));
      if (!user || !ok || user.status === 2) {
        await repo.recordFailures(db, keys, now, now - THROTTLE_WINDOW_MS);
        throw oauthError('invalid_grant', 'Invalid username or password');
      }
      const patch: { status?: number; password_hash?: string } = {};
      // Logging in stands in for activation on the original's own site (docs/interface.md §5).
      if (user.status === 0) patch.status = 1;
      // A hash made at an earlier cost (N=2^14, p=5 used 16 MiB a log-in) is made again at today's.
      if (!hashedAt(user.password_hash, cost)) patch.password_hash = await hashPassword(password, cost);
      if (patch.status !== undefined || patch.password_hash !== undefined)
        await repo.updateUser(db, user.id, { ...patch, updated_at: now });
      return issueTokens(user.id, clientId, true);
    },

    async refreshGrant(refreshToken: string, clientId: string): Promise<TokenResponse> {
      const row = await repo.findRefreshToken(db, sha256(refreshToken), clock.now());
      if (!row || row.client_id !== clientId) throw oauthError('invalid_grant', 'The refresh token is invalid or has expired');
      const user = await repo.findUserById(db, row.user_id);
      if (!user || user.status === 2) throw oauthError('invalid_grant', 'The refresh token is invalid or has expired');
      return issueTokens(user.id, clientId, false);
    },

    /** Resolves a bearer token to its user, or throws 403 access_denied. */
    async authenticate(token: string | undefined): Promise<UserRow> {
      if (token === undefined || token === '') throw accessDenied('Bearer token not found');
      const entry = await repo.tokenOwner(ctx.database, token);
      const now = clock.now();
      if (entry === undefined || entry.expiresAt <= now) throw accessDenied('The access token is invalid or has expired');
      // A copy per request: handlers may hold it while the cache moves on.
      const user = { ...entry.user };
      // Presence is written at most once a minute per user by each process (own table: no cache flush).
      if (now - (touched.get(user.id) ?? -Infinity) > LAST_SEEN_RESOLUTION_MS) {
        if (touched.size >= 100_000) touched.clear(); // bounded: forgetting costs one write per user
        touched.set(user.id, now);
        await repo.touchLastSeen(db, user.id, now);
      }
      return user;
    },

    /** Business endpoints need an activated, enabled account (docs/interface.md §5). */
    assertActive(user: AuthUser): void {
      if (user.status === 0) throw forbidden('account not activated: log in with the password grant first');
      if (user.status === 2) throw forbidden('account disabled');
    },

    /** A platform user by id (members are added by it). */
    userById(id: number): Promise<UserRow | undefined> {
      return repo.findUserById(db, id);
    },

    /** Deletes expired tokens and codes and failed log-ins older than the throttle window; returns how many. */
    pruneExpired(): Promise<number> {
      return repo.pruneExpired(db, clock.now());
    },

    async toResponse(user: UserRow): Promise<PlatformUser> {
      return toPlatformUser(user, await repo.salesCount(ctx.database.reader, user.id), clock);
    },

    async updateUser(caller: UserRow, input: UpdateUserInput): Promise<PlatformUser> {
      if (input.user_id !== undefined && input.user_id !== caller.id) {
        throw failure('forbidden', 'You can only update your own profile');
      }
      if (input.sex !== undefined && input.sex !== 1 && input.sex !== 2) throw failure('sex_invalid');
      const texts = {
        name: input.name,
        city: input.city,
        province: input.province,
        company: input.company,
        industry: input.industry,
        position: input.position,
      };
      const patch: Partial<UserRow> = {};
      for (const [field, value] of Object.entries(texts)) {
        if (value === undefined) continue;
        const max = field === 'name' ? 64 : 128;
        if (value.length > max) throw fieldFailure(field, 'invalid', `${field} must be at most ${max} characters`);
        (patch as Record<string, string | null>)[field] = value.trim() === '' ? null : value.trim();
      }
      if (input.sex !== undefined) patch.sex = input.sex;
      if (input.email !== undefined) {
        const email = input.email.trim();
        if (email === '') {
          if (caller.phone_num === null) throw failure('email_invalid', 'An account registered by e-mail must keep an e-mail address');
          Object.assign(patch, { email: null, email_lower: null, email_status: 0 });
        } else {
          if (!isEmail(email)) throw failure('email_invalid', 'email is not a valid e-mail address');
          if (await repo.emailTakenByOther(db, email.toLowerCase(), caller.id)) throw failure('email_existed');
          if (email.toLowerCase() !== caller.email_lower) {
            Object.assign(patch, { email, email_lower: email.toLowerCase(), email_status: 0 });
          } else {
            patch.email = email;
          }
        }
      }
      let updated: UserRow | undefined;
      try {
        updated = await repo.updateUser(db, caller.id, { ...patch, updated_at: clock.now() });
      } catch (err) {
        if (isUniqueViolation(err)) throw failure('email_existed');
        throw err;
      }
      if (!updated) throw failure('user_not_found');
      return this.toResponse(updated);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
