import type { AppContext } from '../../context.ts';
import { isUniqueViolation, uniqueViolationTarget } from '../../db/index.ts';
import { oauthError, tooManyRequests } from '../../http/errors.ts';
import {
  INSECURE_FAST_SCRYPT,
  OWASP_SCRYPT,
  dummyPasswordHash,
  hashPassword,
  hashedAt,
  randomDigits,
  sha256,
  verifyPassword,
} from '../../lib/secrets.ts';
import { CONSOLE_CLIENT_ID, type ClientsService } from '../clients/service.ts';
import type { AccountsAdmin } from './admin.service.ts';
import type { CodesService } from './codes.service.ts';
import { type RegisterInput, blank, consoleClientOf, identifier, passwordLengthOk } from './identity.ts';
import { type Db, type NewUser, type UserRow, accountsRepository as repo } from './repository.ts';
import type { TokenResponse, TokensService } from './tokens.service.ts';

const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
const THROTTLE_MAX_FAILURES = 10;
const REGISTER_CHANNELS = new Set([3, 4, 5, 6, 7]);

export interface ClientCredentials {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
}

export interface SignInDeps {
  clients: ClientsService;
  tokens: TokensService;
  codes: CodesService;
  admin: AccountsAdmin;
}

const taken = (email: boolean) =>
  email
    ? oauthError('email_existed', 'The e-mail is already registered')
    : oauthError('phone_num_existed', 'The mobile number is already registered');

/** A registration's fields besides the identifier and the code, checked. */
function checkRegistration(input: RegisterInput): string {
  const password = input.password ?? '';
  if (!passwordLengthOk(password)) throw oauthError('invalid_request', 'password must be 8 to 128 characters');
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
  return password;
}

/**
 * Sign-up and sign-in, for the OAuth calls of partners' clients (register, the password and refresh
 * grants) and the console's session (sign-in, refresh, sign-out, sign-up): client authentication,
 * registration, failed log-in throttling, and the tokens each issues.
 */
export function createSignInService(ctx: AppContext, deps: SignInDeps) {
  const { clients, tokens, codes, admin } = deps;
  const consoleClient = consoleClientOf(clients);
  const db = ctx.database.db;
  const clock = ctx.clock;
  const cost = ctx.config.insecureFastHash ? INSECURE_FAST_SCRYPT : OWASP_SCRYPT;

  /** Validates a registration and makes the new user's row (status 0, not activated); stores nothing. */
  async function newUserRow(input: RegisterInput, codeRequired = ctx.config.requireVerificationCode): Promise<NewUser> {
    const { phoneNum, email } = identifier(input);
    const password = checkRegistration(input);
    if (codeRequired || !blank(input.code)) await codes.useRegisterCode({ phoneNum, email }, input.code);
    if (await repo.findUserByUsername(db, email ?? phoneNum ?? '')) throw taken(email !== undefined);
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
      if (isUniqueViolation(err)) throw taken(/email/.test(uniqueViolationTarget(err)));
      throw err;
    }
  }

  /** HTTP 429 while the user name or the address has had too many failed log-ins in the window. */
  async function throttle(keys: string[], now: number): Promise<void> {
    for (const key of keys) {
      const recent = await repo.recentFailures(db, key, now - THROTTLE_WINDOW_MS, THROTTLE_MAX_FAILURES);
      if (recent.length >= THROTTLE_MAX_FAILURES) {
        const oldest = recent[recent.length - 1] ?? now;
        throw tooManyRequests((oldest + THROTTLE_WINDOW_MS - now) / 1000, 'Too many failed log-in attempts; try again later');
      }
    }
  }

  async function passwordGrant(username: string, password: string, ip: string, clientId: string): Promise<TokenResponse> {
    const now = clock.now();
    const keys = [`user:${username.trim().toLowerCase()}`, `ip:${ip}`];
    await throttle(keys, now);
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
    if (patch.status !== undefined || patch.password_hash !== undefined) await repo.updateUser(db, user.id, { ...patch, updated_at: now });
    return tokens.issue(user.id, clientId, true);
  }

  async function refreshGrant(refreshToken: string, clientId: string): Promise<TokenResponse> {
    const row = await repo.findRefreshToken(db, sha256(refreshToken), clock.now());
    if (!row || row.client_id !== clientId) throw oauthError('invalid_grant', 'The refresh token is invalid or has expired');
    const user = await repo.findUserById(db, row.user_id);
    if (!user || user.status === 2) throw oauthError('invalid_grant', 'The refresh token is invalid or has expired');
    return tokens.issue(user.id, clientId, false);
  }

  /**
   * Sign-up through an invitation (docs/projects.md, "Invitations"), open whether or not sign-up is:
   * the account of the invited address, made in one transaction with `join` (which uses the
   * invitation and makes the membership, or throws and nothing is kept), then signed in to the console.
   */
  async function consoleSignUpInvited<T>(
    input: { email: string; nickname?: string | undefined; password?: string | undefined },
    join: (trx: Db, userId: number) => Promise<T>,
  ): Promise<{ tokens: TokenResponse; joined: T }> {
    const clientId = await consoleClient();
    // No registration code: the invitation's link, mailed to the address or handed over by the inviter, stands for it.
    const row: NewUser = { ...(await newUserRow({ ...input, code: undefined }, false)), status: 1 };
    const { user, joined } = await db.transaction().execute(async (trx) => {
      const made = await insertUser(row, trx);
      return { user: made, joined: await join(trx, made.id) };
    });
    return { tokens: await tokens.issue(user.id, clientId, true), joined };
  }

  return {
    passwordGrant,
    refreshGrant,
    consoleSignUpInvited,

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
      const user = await insertUser(await newUserRow(input));
      return tokens.issue(user.id, clientId, true);
    },

    /** The console's password grant, through its own client. */
    async consoleSignIn(username: string, password: string, ip: string): Promise<TokenResponse> {
      return passwordGrant(username, password, ip, await consoleClient());
    },

    /** The console's refresh grant: a new access token for the session cookie's refresh token. */
    async consoleRefresh(refreshToken: string | undefined): Promise<TokenResponse> {
      if (refreshToken === undefined || refreshToken === '') throw oauthError('invalid_grant', 'No console session: sign in');
      return refreshGrant(refreshToken, await consoleClient());
    },

    /** Ends a console session: its refresh token and the access token it holds stop working. */
    async consoleSignOut(refreshToken: string | undefined, accessToken: string | undefined): Promise<void> {
      if (refreshToken) await tokens.revoke(refreshToken, CONSOLE_CLIENT_ID, 'refresh_token');
      if (accessToken) await tokens.revoke(accessToken, CONSOLE_CLIENT_ID, 'access_token');
    },

    /**
     * Sign-up from the console, when it is open (signupOpen): registers the user and signs them in at
     * once (the account is activated, as by a first password grant). The first account of a server
     * needs the setup code (docs/accounts.md) and is a server administrator.
     */
    async consoleSignUp(input: RegisterInput): Promise<TokenResponse> {
      const closed = () => oauthError('signup_closed', 'Sign-up is closed on this server');
      const clientId = await consoleClient();
      const first = !(await repo.anyUser(db));
      if (!first && !ctx.config.allowSignup) throw closed();
      if (first && !(await admin.setupCodeMatches(input.setupCode))) {
        throw oauthError('setup_code_invalid', "The setup code is missing or wrong: it is in the server's log");
      }
      const row: NewUser = { ...(await newUserRow(input)), status: 1 };
      const user = !first
        ? await insertUser(row)
        : // Exactly one sign-up may make the first account, however many processes race. Each takes
          // the claim row's lock first (others wait for it to commit), then looks for a user: the
          // first finds none, every later one finds it (and, with ALLOW_SIGNUP, is an ordinary account).
          await db.transaction().execute(async (trx) => {
            await repo.lockFirstAccountClaim(trx, clock.now());
            if (!(await repo.anyUser(trx))) return insertUser({ ...row, server_admin: 1 }, trx);
            if (!ctx.config.allowSignup) throw closed();
            return insertUser(row, trx);
          });
      return tokens.issue(user.id, clientId, true);
    },

    /** `rapport user create`: an activated account the operator makes, a server administrator with `admin`. */
    async operatorCreateUser(input: RegisterInput, options: { admin: boolean }): Promise<UserRow> {
      const row: NewUser = { ...(await newUserRow({ ...input, code: undefined }, false)), status: 1 };
      return insertUser(options.admin ? { ...row, server_admin: 1 } : row);
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
