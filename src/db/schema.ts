import type { Generated } from 'kysely';

/**
 * Storage shapes (Kysely table interfaces). Times are epoch milliseconds in BIGINT columns so that
 * both dialects sort and range-scan them the same way; they are formatted at the HTTP boundary.
 */

export interface UsersTable {
  id: Generated<number>;
  phone_num: string | null;
  email: string | null;
  /** Lower-cased e-mail, unique: log-in by e-mail is case-insensitive. */
  email_lower: string | null;
  password_hash: string;
  name: string | null;
  email_status: number;
  phone_num_status: number;
  photo_uri: string | null;
  openid: string | null;
  unionid: string | null;
  sex: number | null;
  city: string | null;
  province: string | null;
  company: string | null;
  position: string | null;
  industry: string | null;
  cc_num: number;
  status: number;
  channel: number | null;
  weixin_nickname: string | null;
  created_at: number;
  updated_at: number;
  /** Last authenticated request (throttled writes); drives a member's onlineStatus. */
  last_seen_at: number | null;
}

export interface OauthClientsTable {
  id: string;
  name: string;
  secret_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export interface AccessTokensTable {
  token_hash: string;
  user_id: number;
  client_id: string;
  expires_at: number;
  created_at: number;
}

export interface RefreshTokensTable {
  token_hash: string;
  user_id: number;
  client_id: string;
  expires_at: number;
  created_at: number;
}

export interface VerificationCodesTable {
  /** 'phone:<number>' or 'email:<lower-cased address>'. */
  target: string;
  code_hash: string;
  expires_at: number;
  created_at: number;
  attempts: number;
}

export interface LoginFailuresTable {
  id: Generated<number>;
  /** 'user:<username>' or 'ip:<address>'. */
  key: string;
  at: number;
}

export interface AppsTable {
  id: string;
  creator_id: number;
  name: string;
  type: string | null;
  description: string | null;
  icon_url: string | null;
  icon_width: number | null;
  icon_height: number | null;
  ios_bundle_id: string | null;
  android_package_name: string | null;
  conference_id: string | null;
  secret: string;
  status: number;
  redirect_uri: string | null;
  create_time: number;
  edit_time: number;
}

export interface MembersTable {
  id: string;
  app_id: string;
  user_id: number;
  conference_id: string | null;
  status: number;
  /** Master | Admin | Sales */
  role: string;
  /** Comma-separated: MarketPost, SalesPost. */
  post_roles: string;
  create_time: number;
  edit_time: number;
}

/** Transactional outbox: one row per event message, written in the same transaction as its change. */
export interface OutboxTable {
  id: string;
  app_id: string;
  event_type: string;
  domain_type: string;
  domain_id: string;
  /** The event body as JSON text. */
  body: string;
  created_at: number;
}

export interface Database {
  users: UsersTable;
  oauth_clients: OauthClientsTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  verification_codes: VerificationCodesTable;
  login_failures: LoginFailuresTable;
  apps: AppsTable;
  members: MembersTable;
  outbox: OutboxTable;
}
