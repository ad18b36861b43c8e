import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { assertConsoleOrigin, startConsoleSession } from '../../http/console-session.ts';
import { OAuthErrorBody, businessResponses, ok } from '../../http/envelope.ts';
import type { InvitationsService } from './invitations.service.ts';
import {
  AppIdParams,
  InvitationIssued,
  InvitationListItem,
  InvitationPathParams,
  InvitationPreview,
  InvitationSignUpBody,
  InvitationTokenParams,
  InviteBody,
  Member,
  OAuthError,
} from './schemas.ts';

const tags = ['Project members'];

export interface InvitationRoutesOptions {
  invitations: InvitationsService;
  /** The console's session: the member pass and how long the session cookie lasts (as sign-in's). */
  session: { memberPass: (accessToken: string, expiresIn: number) => Promise<string>; refreshTokenTtl: number; publicBaseUrl: string };
}

/** Invitations (docs/projects.md, "Invitations"): the project's managers' side, and the link holder's. */
export function invitationRoutes(fastify: FastifyInstance, opts: InvitationRoutesOptions): void {
  managerRoutes(fastify, opts.invitations);
  holderRoutes(fastify, opts);
}

/** A project's Master and Admins invite, list, resend and revoke; each link made counts against the project's budget. */
function managerRoutes(fastify: FastifyInstance, invitations: InvitationsService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const countLink = (request: Parameters<typeof actorOf>[0], reply: Parameters<typeof fastify.limits.count>[1]) =>
    fastify.limits.count(request, reply, { invitation: actorOf(request).app.id });

  app.post(
    '/api/v1.7/app/:appId/invitations',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary:
          'Invite someone by e-mail (Master/Admin; only Master invites an Admin): the link is answered once, and mailed when SMTP is set',
        description:
          'Inviting an address with a pending invitation renews it (a new link, role and expiry; the old link stops working). ' +
          'Links last 7 days. `RATE_LIMIT_INVITATIONS` links a minute per project, and at most 100 a day (429 rate_limited).',
        params: AppIdParams,
        body: InviteBody,
        response: businessResponses(InvitationIssued),
      },
    },
    async (request, reply) => {
      await countLink(request, reply);
      return ok(await invitations.create(actorOf(request), request.body));
    },
  );

  app.get(
    '/api/v1.7/app/:appId/invitations',
    {
      config: { project: 'manager' },
      schema: {
        tags,
        summary: "The project's pending invitations (not accepted, revoked or expired), newest first; never their links (Master/Admin)",
        params: AppIdParams,
        response: businessResponses(Type.Array(InvitationListItem)),
      },
    },
    async (request) => ok(await invitations.list(actorOf(request))),
  );

  app.post(
    '/api/v1.7/app/:appId/invitations/:id/resend',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary:
          'A new link and expiry for a pending or expired invitation, mailed again when SMTP is set; the old link stops working (Master/Admin)',
        params: InvitationPathParams,
        response: businessResponses(InvitationIssued),
      },
    },
    async (request, reply) => {
      await countLink(request, reply);
      return ok(await invitations.resend(actorOf(request), { id: request.params.id }));
    },
  );

  app.delete(
    '/api/v1.7/app/:appId/invitations/:id',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Revoke a pending invitation: its link stops working (Master/Admin)',
        params: InvitationPathParams,
        response: businessResponses(Type.Literal(true)),
      },
    },
    async (request) => ok(await invitations.revoke(actorOf(request), { id: request.params.id })),
  );
}

/** Whoever holds a link: what it invites to, accepting it signed in, and signing up through it. */
function holderRoutes(fastify: FastifyInstance, opts: InvitationRoutesOptions): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { invitations, session } = opts;

  app.get(
    '/api/v1.7/invitation/:token',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        security: [],
        summary:
          "What an invitation link invites to: the project's name, who invites, the address and role. Any token that is not a live invitation " +
          '(unknown, expired, revoked or used) answers invitation_not_found alike.',
        params: InvitationTokenParams,
        response: businessResponses(InvitationPreview),
      },
    },
    async (request) => ok(await invitations.preview(request.params.token)),
  );

  app.post(
    '/api/v1.7/invitation/:token/accept',
    {
      bodyLimit: BODY_LIMITS.small,
      schema: {
        tags,
        summary: "Accept an invitation with the caller's account: they join its project with its role, accepted at once; the link is used",
        params: InvitationTokenParams,
        response: businessResponses(Member),
      },
    },
    async (request) => ok(await invitations.accept(request.user.id, { token: request.params.token })),
  );

  app.post(
    '/svcuser/console/invitation-signup',
    {
      bodyLimit: BODY_LIMITS.oauth,
      config: { auth: 'none', errorStyle: 'oauth' },
      preValidation: async (request) => assertConsoleOrigin(request, session.publicBaseUrl),
      schema: {
        tags,
        security: [],
        summary:
          "Sign-up through an invitation, from the console's origin, open even when sign-up is closed: the invited address's account is made, " +
          'joins the project and is signed in (the refresh token in the session cookie, as the console sign-in).',
        body: InvitationSignUpBody,
        response: {
          200: Type.Object({ access_token: Type.String(), token_type: Type.String(), expires_in: Type.Integer(), app_id: Type.String() }),
          400: OAuthError,
          403: OAuthErrorBody,
          429: OAuthErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { tokens, appId } = await invitations.signUp(request.body);
      return { ...(await startConsoleSession(request, reply, tokens, session)), app_id: appId };
    },
  );
}
