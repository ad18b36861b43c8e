import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/auth.ts';
import { BODY_LIMITS } from '../../http/body-limits.ts';
import { businessResponses, ok } from '../../http/envelope.ts';
import { page } from '../../http/paging.ts';
import { AppIdParams } from '../projects/schemas.ts';
import {
  AddMemberBody,
  ListMembersQuery,
  Member,
  MemberListItem,
  MemberPathParams,
  MembershipStateQuery,
  OwnMembershipParams,
  UserMembership,
} from './schemas.ts';
import type { MembersService } from './service.ts';
import { type InvitationRoutesOptions, invitationRoutes } from './invitations.routes.ts';

const tags = ['Project members'];
const ownTags = ['Accounts and tokens'];

export async function membersRoutes(
  fastify: FastifyInstance,
  opts: { members: MembersService; session: InvitationRoutesOptions['session'] },
): Promise<void> {
  projectMemberRoutes(fastify, opts.members);
  ownMembershipRoutes(fastify, opts.members);
  invitationRoutes(fastify, { invitations: opts.members.invitations, session: opts.session });
}

/** A project's members, as its managers and members see them. */
function projectMemberRoutes(fastify: FastifyInstance, members: MembersService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1.7/app/:appId/members',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Add a sales member (Master/Admin; only Master makes an Admin)',
        params: AppIdParams,
        body: AddMemberBody,
        response: businessResponses(Member),
      },
    },
    async (request) => ok(await members.add(actorOf(request), request.body)),
  );

  app.post(
    '/api/v1.7/app/:appId/member/:svcUserId',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'manager' },
      schema: {
        tags,
        summary: 'Remove a member, by member record id or platform user id (Master/Admin; not the creator)',
        params: MemberPathParams,
        response: businessResponses(Type.Literal(true)),
      },
    },
    async (request) => ok(await members.remove(actorOf(request), { ref: request.params.svcUserId })),
  );

  app.get(
    '/api/v1.7/app/:appId/members',
    {
      schema: {
        tags,
        summary: 'List project members by join time',
        params: AppIdParams,
        querystring: ListMembersQuery,
        response: businessResponses(Type.Array(MemberListItem)),
      },
    },
    async (request) => ok(await members.list(actorOf(request), { keyword: request.query.keyword, page: page(request.query) })),
  );
}

/** Beyond the interface: the user's own side of memberships (docs/projects.md). */
function ownMembershipRoutes(fastify: FastifyInstance, members: MembersService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1.7/user/memberships',
    {
      schema: {
        tags: ownTags,
        summary: "The caller's memberships in live projects, newest first; state=pending lists those waiting for acceptance",
        querystring: MembershipStateQuery,
        response: businessResponses(Type.Array(UserMembership)),
      },
    },
    async (request) => ok(await members.memberships(request.user.id, { state: request.query.state })),
  );

  app.post(
    '/api/v1.7/user/membership/:appId/accept',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'none' },
      schema: {
        tags: ownTags,
        summary: 'Accept a membership someone else made: the project then sees your phone number and e-mail',
        params: OwnMembershipParams,
        response: businessResponses(Member),
      },
    },
    async (request) => ok(await members.accept(request.user.id, { appId: request.params.appId })),
  );

  app.post(
    '/api/v1.7/user/membership/:appId/leave',
    {
      bodyLimit: BODY_LIMITS.small,
      config: { project: 'none' },
      schema: {
        tags: ownTags,
        summary: 'Leave a project, or decline a pending membership (not the creator)',
        params: OwnMembershipParams,
        response: businessResponses(Type.Literal(true)),
      },
    },
    async (request) => ok(await members.leave(request.user.id, { appId: request.params.appId })),
  );
}
