import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { Envelope, OAuthErrorBody, ok } from '../../http/envelope.ts';
import { oauthError } from '../../http/errors.ts';
import type { AccountsService } from './service.ts';
import {
  OAuthError,
  PlatformUser,
  RegisterBody,
  TokenBody,
  TokenResponse,
  UpdateUserBody,
  UserInfoQuery,
  VerificationCodeBody,
} from './schemas.ts';

const TAG = ['Accounts and tokens'];

export async function accountsRoutes(fastify: FastifyInstance, opts: { accounts: AccountsService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { accounts } = opts;
  // The token and register calls authenticate their OAuth client before validating the rest, so that
  // every call counts: against the client's rate limit once it is authenticated, against the
  // address when it is not. They take small bodies.
  const clients = new WeakMap<FastifyRequest, string>();
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const oauthConfig = { auth: 'none' as const, errorStyle: 'oauth' as const, limitBy: 'caller' as const };
  const oauthRoute = {
    config: oauthConfig,
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
        response: { 200: { type: 'object', properties: { expires_in: { type: 'integer' } } }, 400: OAuthError },
      },
    },
    async (request) => accounts.issueVerificationCode(request.body),
  );

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
