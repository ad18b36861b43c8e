import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { bearerToken } from '../../http/auth.ts';
import { SESSION_COOKIE, SESSION_PATH, assertConsoleOrigin, clearSessionCookie, startConsoleSession } from '../../http/console-session.ts';
import { readCookie } from '../../http/cookies.ts';
import { Envelope, OAuthErrorBody, RateLimited, ok } from '../../http/envelope.ts';
import { oauthError } from '../../http/errors.ts';
import type { AccountsService } from './service.ts';
import {
  CodeIssued,
  ConsolePasswordCodeBody,
  ConsolePasswordResetBody,
  ConsoleSignInBody,
  ConsoleSignUpBody,
  ConsoleToken,
  EmptyObject,
  OAuthError,
  RevokeBody,
  ServerInfo,
  PlatformUser,
  RegisterBody,
  TokenBody,
  TokenResponse,
  UpdateUserBody,
  UserInfoQuery,
  VerificationCodeBody,
} from './schemas.ts';

const TAG = ['Accounts and tokens'];

export interface AccountsRoutesOptions {
  accounts: AccountsService;
  /** The server's version, told by server-info. */
  version: string;
  /** PUBLIC_BASE_URL: its origin is the console's, besides the one each request is made to. */
  publicBaseUrl: string;
  /** Seconds a refresh token lasts: the console's session cookie lasts as long. */
  refreshTokenTtl: number;
}

export async function accountsRoutes(fastify: FastifyInstance, opts: AccountsRoutesOptions): Promise<void> {
  const oauth = oauthClientCalls(fastify, opts.accounts);
  registrationRoutes(fastify, opts.accounts, oauth);
  grantRoutes(fastify, opts.accounts, oauth);
  serverInfoRoute(fastify, opts);
  const session = consoleSession(opts);
  consoleSessionRoutes(fastify, opts.accounts, session);
  consolePasswordRoutes(fastify, opts.accounts, session);
  userRoutes(fastify, opts.accounts);
}

/** The OAuth calls' route options and the client each authenticated. */
interface OAuthCalls {
  route: {
    config: { auth: 'none'; errorStyle: 'oauth'; limitBy: 'caller' };
    bodyLimit: number;
    preValidation: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  };
  clientOf: (request: FastifyRequest) => string;
}

/**
 * The token and register calls authenticate their OAuth client before validating the rest, so that
 * every call counts: against the client's rate limit once it is authenticated, against the address
 * when it is not. They take small bodies.
 */
function oauthClientCalls(app: FastifyInstance, accounts: AccountsService): OAuthCalls {
  const clients = new WeakMap<FastifyRequest, string>();
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const route = {
    config: { auth: 'none' as const, errorStyle: 'oauth' as const, limitBy: 'caller' as const },
    bodyLimit: BODY_LIMITS.oauth,
    preValidation: async (request: FastifyRequest, reply: FastifyReply) => {
      const b = (request.body ?? {}) as Record<string, unknown>;
      const id = await app.limits.countAs(
        request,
        reply,
        () =>
          accounts.authenticateClient(request.headers.authorization, { clientId: text(b.client_id), clientSecret: text(b.client_secret) }),
        (clientId) => ({ client: clientId, ip: request.ip }),
      );
      clients.set(request, id);
    },
  };
  const clientOf = (request: FastifyRequest): string => {
    const id = clients.get(request);
    if (id === undefined) throw new Error('token call without its client');
    return id;
  };
  return { route, clientOf };
}

/** `register` and its verification code, through a partner's client. */
function registrationRoutes(fastify: FastifyInstance, accounts: AccountsService, oauth: OAuthCalls): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { route: oauthRoute, clientOf } = oauth;

  app.post(
    '/svcuser/oauth2/register',
    {
      ...oauthRoute,
      schema: {
        tags: TAG,
        summary: 'Register a platform user (phone number or e-mail); returns tokens. The account starts unactivated.',
        body: RegisterBody,
        response: { 200: TokenResponse, 400: OAuthError },
      },
    },
    async (request) => accounts.register(request.body, clientOf(request)),
  );

  app.post(
    '/svcuser/oauth2/verification-code',
    {
      ...oauthRoute,
      schema: {
        tags: TAG,
        summary: 'Send a 6-digit verification code (valid 10 minutes) to a phone number or e-mail, for register.',
        body: VerificationCodeBody,
        response: { 200: CodeIssued, 400: OAuthError },
      },
    },
    async (request) => accounts.issueVerificationCode(request.body),
  );
}

/** The password and refresh grants and the revoke call, through a partner's client. */
function grantRoutes(fastify: FastifyInstance, accounts: AccountsService, oauth: OAuthCalls): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { route: oauthRoute, clientOf } = oauth;

  app.post(
    '/svcuser/oauth2/access_token',
    {
      ...oauthRoute,
      schema: {
        tags: TAG,
        summary: 'Password grant (grant_type=password, username, password) or refresh grant (grant_type=refresh_token, refresh_token).',
        body: TokenBody,
        response: { 200: TokenResponse, 400: OAuthError },
      },
    },
    async (request) => {
      const b = request.body;
      const clientId = clientOf(request);
      if (b.grant_type === undefined || b.grant_type === '') throw oauthError('invalid_request', 'Missing parameter: grant_type');
      if (b.grant_type === 'password') {
        const missing = (['username', 'password'] as const).filter((k) => b[k] === undefined || b[k] === '');
        if (missing.length > 0) throw oauthError('invalid_request', `Missing parameter: ${missing.join(', ')}`);
        return accounts.passwordGrant(b.username ?? '', b.password ?? '', request.ip, clientId);
      }
      if (b.grant_type === 'refresh_token') {
        if (b.refresh_token === undefined || b.refresh_token === '')
          throw oauthError('invalid_request', 'Missing parameter: refresh_token');
        return accounts.refreshGrant(b.refresh_token, clientId);
      }
      throw oauthError('unsupported_grant_type', `grant_type '${b.grant_type}' is not supported`);
    },
  );

  app.post(
    '/svcuser/oauth2/revoke',
    {
      ...oauthRoute,
      schema: {
        tags: TAG,
        summary:
          'Revoke an access or refresh token issued through the calling client (RFC 7009). Answers {} whether or not the token was known.',
        body: RevokeBody,
        response: { 200: EmptyObject, 400: OAuthError },
      },
    },
    async (request) => {
      const token = request.body.token;
      if (token === undefined || token === '') throw oauthError('invalid_request', 'Missing parameter: token');
      await accounts.revoke(token, clientOf(request), request.body.token_type_hint);
      return {};
    },
  );
}

function serverInfoRoute(fastify: FastifyInstance, opts: AccountsRoutesOptions): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { accounts } = opts;

  app.get(
    '/api/v1.7/server-info',
    {
      config: { auth: 'none' },
      schema: {
        tags: TAG,
        security: [],
        summary: "What a client needs before signing in: the server's version, its TIME_ZONE, and whether the console may sign up a user.",
        response: { 200: Envelope(ServerInfo), 429: RateLimited },
      },
    },
    async () => ok(await accounts.serverInfo(opts.version)),
  );
}

/** What the console's routes share: their options, their answers, and how a session starts. */
interface ConsoleSession {
  route: {
    config: { auth: 'none'; errorStyle: 'oauth' };
    bodyLimit: number;
    preValidation: (request: FastifyRequest) => Promise<void>;
  };
  responses: typeof CONSOLE_RESPONSES;
  start: (
    request: FastifyRequest,
    reply: FastifyReply,
    tokens: { access_token: string; refresh_token?: string; expires_in: number },
  ) => Promise<{ access_token: string; token_type: string; expires_in: number }>;
}

const CONSOLE_RESPONSES = { 200: ConsoleToken, 400: OAuthError, 403: OAuthErrorBody, 429: OAuthErrorBody };

/**
 * The web console's session (docs/console.md): its own public client, the refresh token in an
 * HttpOnly cookie sent only to these paths, accepted only from the console's origin.
 */
function consoleSession(opts: AccountsRoutesOptions): ConsoleSession {
  const { accounts } = opts;
  return {
    route: {
      config: { auth: 'none' as const, errorStyle: 'oauth' as const },
      bodyLimit: BODY_LIMITS.oauth,
      preValidation: async (request: FastifyRequest) => assertConsoleOrigin(request, opts.publicBaseUrl),
    },
    responses: CONSOLE_RESPONSES,
    start: (request, reply, tokens) =>
      startConsoleSession(request, reply, tokens, { memberPass: accounts.memberPass, refreshTokenTtl: opts.refreshTokenTtl }),
  };
}

/** The console's sign-in, refresh, sign-out and sign-up. */
function consoleSessionRoutes(fastify: FastifyInstance, accounts: AccountsService, session: ConsoleSession): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { route: consoleRoute, responses: consoleResponses, start: startSession } = session;

  app.post(
    SESSION_PATH,
    {
      ...consoleRoute,
      schema: {
        tags: TAG,
        security: [],
        summary:
          "The console's sign-in (password grant of its own client, from the console's origin only): the access token in the answer, the refresh token in an HttpOnly cookie.",
        body: ConsoleSignInBody,
        response: consoleResponses,
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const missing = (['username', 'password'] as const).filter((k) => !request.body[k]);
      if (missing.length > 0) throw oauthError('invalid_request', `Missing parameter: ${missing.join(', ')}`);
      return startSession(request, reply, await accounts.consoleSignIn(username ?? '', password ?? '', request.ip));
    },
  );

  app.post(
    `${SESSION_PATH}/refresh`,
    {
      ...consoleRoute,
      schema: {
        tags: TAG,
        security: [],
        summary: "The console's refresh grant: a new access token for the session cookie's refresh token.",
        response: consoleResponses,
      },
    },
    async (request, reply) => startSession(request, reply, await accounts.consoleRefresh(readCookie(request, SESSION_COOKIE))),
  );

  app.delete(
    SESSION_PATH,
    {
      ...consoleRoute,
      schema: {
        tags: TAG,
        security: [],
        summary: "The console's sign-out: revokes the session's refresh token and the access token sent with it, and clears the cookie.",
        response: { 200: EmptyObject, 403: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      await accounts.consoleSignOut(readCookie(request, SESSION_COOKIE), bearerToken(request));
      clearSessionCookie(request, reply);
      return {};
    },
  );

  app.post(
    '/svcuser/console/signup',
    {
      ...consoleRoute,
      schema: {
        tags: TAG,
        security: [],
        summary:
          'Sign-up from the console (its origin only), open when ALLOW_SIGNUP is set or no user exists yet: registers, activates and signs in.',
        body: ConsoleSignUpBody,
        response: consoleResponses,
      },
    },
    async (request, reply) => startSession(request, reply, await accounts.consoleSignUp(request.body)),
  );
}

/**
 * Forgotten passwords (docs/accounts.md): a reset code by the verification-code sender, then the
 * code and a new password. Both answer alike whether or not the account exists.
 */
function consolePasswordRoutes(fastify: FastifyInstance, accounts: AccountsService, session: ConsoleSession): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { route: consoleRoute } = session;

  app.post(
    '/svcuser/console/password-code',
    {
      ...consoleRoute,
      schema: {
        tags: TAG,
        security: [],
        summary:
          "The console's forgotten password, step one (its origin only): sends a 6-digit reset code (valid 10 minutes) to the account's e-mail or mobile number. The same answer whether or not the account exists.",
        body: ConsolePasswordCodeBody,
        response: { 200: CodeIssued, 400: OAuthError, 403: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request) => accounts.consolePasswordCode(request.body.username),
  );

  app.post(
    '/svcuser/console/password-reset',
    {
      ...consoleRoute,
      schema: {
        tags: TAG,
        security: [],
        summary:
          "The console's forgotten password, step two (its origin only): the reset code and a new password (8 to 128 characters). Every token of the user is revoked: their sessions end.",
        body: ConsolePasswordResetBody,
        response: { 200: EmptyObject, 400: OAuthError, 403: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request) => accounts.consolePasswordReset(request.body),
  );
}

/** The caller's own user object and its update. */
function userRoutes(fastify: FastifyInstance, accounts: AccountsService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/svcuser/oauth2/getUserInfoByAccessToken',
    {
      config: { auth: 'any' },
      schema: {
        tags: TAG,
        summary: 'The platform user behind an access token (bare object, no envelope).',
        querystring: UserInfoQuery,
        response: { 200: PlatformUser, 403: OAuthErrorBody },
      },
    },
    async (request) => accounts.toResponse(request.user),
  );

  app.post(
    '/api/v1.7/user/update',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { auth: 'any' },
      schema: {
        tags: TAG,
        summary: "Update the caller's own profile.",
        body: UpdateUserBody,
        response: { 200: Envelope(PlatformUser), 403: OAuthErrorBody },
      },
    },
    async (request) => ok(await accounts.updateUser(request.user, request.body)),
  );
}
