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

export interface CustomerMetadataTable {
  app_id: string;
  name: string;
  type: string;
  title: string;
  is_ext: number;
  is_unique: number;
  required: number;
  visiable: number;
  sort_index: number;
  default_value: string | null;
  /** JSON text `[{"value","label"}]` for option attributes. */
  option_values: string | null;
  readonly: number;
}

export interface CustomerGroupsTable {
  id: string;
  app_id: string;
  owner_id: number;
  name: string;
  created_at: number;
}

export interface CustomersTable {
  id: string;
  app_id: string;
  /** The owning sales user (svcUserId). */
  owner_id: number;
  group_id: string | null;
  name: string | null;
  headportrait_url: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
  email: string | null;
  email_lower: string | null;
  fixed_phone: string | null;
  industry: string | null;
  province: string | null;
  city: string | null;
  county: string | null;
  address: string | null;
  lead_source: string | null;
  platform: string | null;
  /** The `from` field (utm source). */
  from_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_content: string | null;
  buyed_keyword: string | null;
  search_keyword: string | null;
  promoter_id: string | null;
  from_content_title: string | null;
  from_content_link: string | null;
  from_province: string | null;
  from_city: string | null;
  source: string | null;
  deal_user_id: string | null;
  allocation_user_id: string | null;
  merged_customer_id: string | null;
  /** Extension attributes (metadata isExt) as a JSON object text. */
  ext: string | null;
  sex: number | null;
  age_state: number | null;
  intentionality: number | null;
  grade: number | null;
  create_way: number | null;
  get_way: number | null;
  /** 1 normal, 0 deleted. */
  status: number;
  is_new: number;
  /** When the owner last opened the detail; behaviour newer than this is `newCount`. */
  detail_viewed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface BehaviourLogsTable {
  id: string;
  app_id: string;
  customer_id: string;
  svc_user_id: string | null;
  deal_user_id: string | null;
  customer_name: string | null;
  action: string;
  params: string | null;
  remote_duration: number | null;
  description: string | null;
  /** The behaviour's own time (`when`). */
  when_at: number;
  /** JSON text whose shape depends on action. */
  content: string | null;
  client_name: string | null;
  client_version: string | null;
  os: string | null;
  os_version: string | null;
  net: string | null;
  ip: string | null;
  location: string | null;
  province: string | null;
  city: string | null;
  /** 0 visitor behaviour, 1 customer behaviour. */
  user_type: number;
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
  customer_metadata: CustomerMetadataTable;
  customer_groups: CustomerGroupsTable;
  customers: CustomersTable;
  behaviour_logs: BehaviourLogsTable;
}
