import { Type } from '@sinclair/typebox';
import { NullableString, NullableInteger } from '../../http/schema-types.ts';

const Str = (maxLength = 256) => Type.String({ maxLength });
const Opt = Type.Optional;

export const TokenBody = Type.Object(
  {
    grant_type: Opt(Str(64)),
    username: Opt(Str(254)),
    password: Opt(Str(1024)),
    refresh_token: Opt(Str(512)),
    client_id: Opt(Str(128)),
    client_secret: Opt(Str(512)),
  },
  { description: 'Form fields (or JSON). Client authentication: HTTP Basic or client_id + client_secret.' },
);

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  refresh_token: Opt(Type.String()),
  token_type: Type.String(),
  expires_in: Type.Integer(),
});

export const RegisterBody = Type.Object({
  phoneNum: Opt(Str(32)),
  email: Opt(Str(254)),
  password: Opt(Str(1024)),
  channel: Opt(Type.Integer({ minimum: 0, maximum: 1000 })),
  nickname: Opt(Str(256)),
  sex: Opt(Type.Integer({ minimum: 0, maximum: 9 })),
  city: Opt(Str(256)),
  province: Opt(Str(256)),
  code: Opt(Str(32)),
  client_id: Opt(Str(128)),
  client_secret: Opt(Str(512)),
});

export const VerificationCodeBody = Type.Object({
  phoneNum: Opt(Str(32)),
  email: Opt(Str(254)),
  client_id: Opt(Str(128)),
  client_secret: Opt(Str(512)),
});

export const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() });

const NullableInt = NullableInteger;

export const PlatformUser = Type.Object({
  id: Type.Integer(),
  password: Type.Null(),
  name: NullableString,
  email: NullableString,
  emailStatus: Type.Integer(),
  phoneNum: NullableString,
  phoneNumStatus: Type.Integer(),
  photoURI: NullableString,
  openid: NullableString,
  unionid: NullableString,
  sex: NullableInt,
  city: NullableString,
  province: NullableString,
  company: NullableString,
  position: NullableString,
  industry: NullableString,
  ccNum: Type.Integer(),
  status: Type.Integer(),
  channel: NullableInt,
  weixinNickname: NullableString,
  salesCount: Type.Integer(),
  personInfoStatus: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  unionidStatus: Type.Integer(),
});

export const UserInfoQuery = Type.Object({ access_token: Opt(Type.String({ maxLength: 512 })) });

export const UpdateUserBody = Type.Object({
  user_id: Opt(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  name: Opt(Str(1024)),
  sex: Opt(Type.Integer({ minimum: -1000, maximum: 1000 })),
  city: Opt(Str(1024)),
  province: Opt(Str(1024)),
  company: Opt(Str(1024)),
  industry: Opt(Str(1024)),
  position: Opt(Str(1024)),
  email: Opt(Str(1024)),
});

export const RevokeBody = Type.Object({
  token: Opt(Str(512)),
  token_type_hint: Opt(Str(64)),
  client_id: Opt(Str(128)),
  client_secret: Opt(Str(512)),
});

export const EmptyObject = Type.Object({}, { additionalProperties: false });

export const ServerInfo = Type.Object({
  version: Type.String(),
  timeZone: Type.String({ description: 'TIME_ZONE: the zone of every yyyy-MM-dd HH:mm:ss timestamp in and out' }),
  signup: Type.Boolean({ description: 'Whether the console may sign up a user now: ALLOW_SIGNUP, or no user exists yet' }),
  publicBaseUrl: Type.String({ description: "PUBLIC_BASE_URL: the start of share links' url, the site snippet's address, mail clicks" }),
  publicBaseUrlIsLocal: Type.Boolean({
    description: 'true while those addresses name this machine alone (localhost) and the server listens beyond it: set PUBLIC_BASE_URL',
  }),
  mail: Type.Boolean({ description: 'The server sends e-mail (SMTP_URL is set): the console says so before a campaign is composed' }),
  setupRequired: Type.Boolean({
    description: 'No account exists yet: the first sign-up must give the setup code the server printed in its log at start (or SETUP_CODE)',
  }),
});

export const ConsoleSignInBody = Type.Object({
  username: Opt(Str(254)),
  password: Opt(Str(1024)),
});

export const ConsoleSignUpBody = Type.Object({
  phoneNum: Opt(Str(32)),
  email: Opt(Str(254)),
  password: Opt(Str(1024)),
  nickname: Opt(Str(256)),
  setupCode: Type.Optional(
    Type.String({
      maxLength: 256,
      description: "The first account of a server (server-info's setupRequired): the setup code the server logged at start, or SETUP_CODE",
    }),
  ),
});

export const ConsolePasswordCodeBody = Type.Object({
  username: Opt(Str(254)),
});

export const ConsolePasswordResetBody = Type.Object({
  username: Opt(Str(254)),
  code: Opt(Str(32)),
  password: Opt(Str(1024)),
});

export const CodeIssued = Type.Object({
  expires_in: Type.Integer({ description: 'Seconds the code is valid' }),
});

/** The console's token answer: no refresh token (it is in the HttpOnly cookie). */
export const ConsoleToken = Type.Object({
  access_token: Type.String(),
  token_type: Type.String(),
  expires_in: Type.Integer(),
});
