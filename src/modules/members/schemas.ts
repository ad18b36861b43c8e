import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { NullableString } from '../../http/schema-types.ts';

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
