import { Type } from '@sinclair/typebox';
import { NullableString, NullableInteger } from '../../http/schema-types.ts';

const NullableInt = NullableInteger;

export const AppIdParams = Type.Object({ appId: Type.String({ maxLength: 64 }) });

export const ProjectBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 10000 })),
  description: Type.Optional(Type.String({ maxLength: 100000 })),
  svc_user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  /** Edit only: the origins the site snippet may send from, comma-separated ('' clears them). */
  site_origins: Type.Optional(Type.String({ maxLength: 100000 })),
  region: Type.Optional(
    Type.String({
      maxLength: 16,
      description:
        "The region the project's phone numbers are read against: ISO 3166-1 alpha-2 (GB, US, CN, …), any case. Create: CN when not sent",
    }),
  ),
  share_domain: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        "Edit only: the project's own share domain, a host name (share.example.com; IDN taken as punycode) its links, campaign " +
        "tracking and site snippet are addressed at instead of PUBLIC_BASE_URL; '' clears it. Unique across projects",
    }),
  ),
  sales_export: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1,
      description: '1: Sales members may export their own customers (default); 0: only Master and Admin export',
    }),
  ),
});

export const Project = Type.Object({
  id: Type.String(),
  creatorId: Type.Integer(),
  name: Type.String(),
  type: NullableString,
  description: NullableString,
  iconURL: NullableString,
  iconWidth: NullableInt,
  iconHeight: NullableInt,
  iosBundleId: NullableString,
  androidPackageName: NullableString,
  conferenceId: NullableString,
  status: Type.Integer(),
  redirectUri: NullableString,
  createTime: Type.String(),
  editTime: Type.String(),
  siteKey: NullableString,
  siteOrigins: Type.String(),
  region: Type.String({ description: "The region the project's phone numbers are read against (ISO 3166-1 alpha-2)" }),
  shareDomain: Type.String({ description: "The project's own share domain (a host name), '' when it has none" }),
});

export const ProjectWithSecret = Type.Composite([Project, Type.Object({ secret: NullableString })]);

export const RotatedSecret = Type.Object({
  secret: Type.String({ description: 'The new project secret' }),
  previousSecretValidUntil: Type.String({ description: 'Until when the replaced secret keeps working (24 hours)' }),
});

export const CreatedProject = Type.Object({ appId: Type.String(), name: Type.String(), description: NullableString });

/** A project's site tracking settings (docs/site-tracking.md), for its Master and Admins. */
export const SiteSettings = Type.Object({
  siteKey: Type.String(),
  siteOrigins: Type.String(),
  siteSecret: Type.String(),
  snippet: Type.String(),
});
