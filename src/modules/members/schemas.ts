import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { NullableString } from '../../http/schema-types.ts';

// The pieces of other modules' contracts the invitation routes compose: the project's path, the OAuth error body.
export { AppIdParams } from '../projects/schemas.ts';
export { OAuthError } from '../accounts/schemas.ts';

export const MemberPathParams = Type.Object({ appId: Type.String({ maxLength: 64 }), svcUserId: Type.String({ maxLength: 64 }) });

export const AddMemberBody = Type.Object({
  svc_user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  role: Type.Optional(Type.String({ maxLength: 32, description: 'Admin or Sales (case-insensitive; member = Sales). Default Sales.' })),
  post_roles: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'the posts, comma-separated: MarketPost, SalesPost (a JSON array is accepted too). Default SalesPost.',
    }),
  ),
});

export const ListMembersQuery = Type.Object({
  ...PagingQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: 'matches name, mobile number or e-mail' })),
});

export const Member = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  svcUserId: Type.Integer(),
  conferenceId: NullableString,
  status: Type.Integer(),
  role: Type.String(),
  createTime: Type.String(),
  editTime: Type.String(),
  accepted: Type.Boolean({
    description:
      'Beyond the interface: false while the user has not accepted the membership (their phone number and e-mail are masked in the member list until then)',
  }),
});

export const MembershipStateQuery = Type.Object({
  state: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('accepted')], {
      description: 'pending: memberships waiting for your acceptance; accepted: the others; absent: all',
    }),
  ),
});

export const OwnMembershipParams = Type.Object({ appId: Type.String({ maxLength: 64 }) });

export const UserMembership = Type.Composite([
  Member,
  Type.Object({
    app: Type.Object({ id: Type.String(), name: Type.String(), description: NullableString, creatorId: Type.Integer() }),
  }),
]);

export const MemberListItem = Type.Composite([
  Member,
  Type.Object({
    postRoles: Type.Array(Type.String()),
    isOwner: Type.Boolean(),
    user: Type.Object({
      id: Type.Integer(),
      conferenceId: NullableString,
      userId: Type.Integer(),
      userName: NullableString,
      userPhotoURL: NullableString,
      createdAt: Type.String(),
      updatedAt: Type.String(),
      phoneNum: NullableString,
      phoneStatus: Type.Integer(),
      email: NullableString,
      onlineStatus: Type.Integer(),
    }),
  }),
]);

export const InvitationPathParams = Type.Object({ appId: Type.String({ maxLength: 64 }), id: Type.String({ maxLength: 64 }) });

export const InviteBody = Type.Object({
  email: Type.Optional(
    Type.String({ maxLength: 254, description: 'the address to invite; the account made from the invitation signs in with it' }),
  ),
  role: Type.Optional(
    Type.String({
      maxLength: 32,
      description: 'Admin or Sales (case-insensitive; member = Sales). Default Sales. Only the Master invites an Admin.',
    }),
  ),
});

export const InvitationIssued = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.String(),
  url: Type.String({ description: 'the link to accept it, answered only here (and on resend): the server keeps only its hash' }),
  expiresAt: Type.String(),
});

export const InvitationListItem = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.String(),
  invitedBy: Type.Integer({ description: 'the platform user id of who invited' }),
  createdAt: Type.String(),
  sentAt: Type.String({ description: 'when its current link was made (created or resent)' }),
  expiresAt: Type.String(),
});

export const InvitationTokenParams = Type.Object({ token: Type.String({ maxLength: 128 }) });

export const InvitationPreview = Type.Object({
  projectName: Type.String(),
  inviterName: Type.String(),
  email: Type.String(),
  role: Type.String(),
  expiresAt: Type.String(),
});

export const InvitationSignUpBody = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 128, description: "the invitation link's token (the part after /console/invite/)" })),
  nickname: Type.Optional(Type.String({ maxLength: 64, description: 'your name, as colleagues see it' })),
  password: Type.Optional(Type.String({ maxLength: 128, description: '8 to 128 characters' })),
});
