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
  /** 1: a server administrator (migration 029): the first account, or made by `rapport user create --admin`. */
  server_admin: Generated<number>;
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
  /** What the code is good for: 'register' or 'reset' (a password reset). */
  purpose: string;
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
  /** The secret the last rotation replaced, valid until previous_secret_until (ms). */
  previous_secret: string | null;
  previous_secret_until: number | null;
  status: number;
  redirect_uri: string | null;
  create_time: number;
  edit_time: number;
  /** The site snippet's public key (migration 016; docs/site-tracking.md): unique, rotatable. */
  site_key: string | null;
  /** The key a site's server signs customer ids with for `identify` (HMAC-SHA256). */
  site_secret: string | null;
  /** Comma-separated origins the snippet may send from; null: none. */
  site_origins: string | null;
  /** 1: Sales members may export their customers; 0: only Master and Admin export (docs/data-operations.md). */
  sales_export: Generated<number>;
  /** The region its phone numbers are read against (ISO 3166-1 alpha-2; migration 030; docs/projects.md). */
  region: Generated<string>;
  /** The project's own share domain (migration 041; docs/projects.md): a lower-case host name, unique; null: none. */
  share_domain: string | null;
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
  /** When the user accepted the membership; null while it is pending (docs/projects.md). */
  accepted_at: number | null;
}

/** An invitation to join a project by e-mail (migration 029, docs/projects.md). */
export interface InvitationsTable {
  id: string;
  app_id: string;
  /** The address as the inviter wrote it (trimmed); `email_lower` is what it is matched by. */
  email: string;
  email_lower: string;
  /** Admin | Sales */
  role: string;
  /** SHA-256 (hex) of the link's token: the token itself is never stored. */
  token_hash: string;
  invited_by: number;
  created_at: number;
  /** When the link was last made (created or resent). */
  sent_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: number | null;
  revoked_at: number | null;
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
  /** Feed position in commit order; null until the sequencer has seen the committed row. */
  seq: number | null;
}

export interface EventCursorsTable {
  name: string;
  position: number;
}

export interface WebhooksTable {
  id: string;
  app_id: string;
  url: string;
  secret: string;
  /** Comma-separated domain types, or null for all. */
  domain_types: string | null;
  /** active | disabled */
  status: string;
  disabled_reason: string | null;
  /** Last feed position handed to a delivery (an event webhook's; a notification channel gets no feed). */
  cursor: number;
  created_by: number;
  created_at: number;
  /** `events`: a webhook of the feed; `alerts`: a notification channel (migration 036, docs/alerts.md). */
  purpose: Generated<string>;
  /** `webhook`, or a channel's chat platform: `slack`, `wecom`, `dingtalk`, `feishu`. */
  kind: Generated<string>;
  /** A channel's options, JSON: `{signals, readThreshold, locale, name}`; null for an event webhook. */
  options: string | null;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  /** The webhook's project (migration 013). */
  app_id: string;
  webhook_id: string;
  /** JSON array of event ids, in feed order. */
  event_ids: string;
  first_seq: number | null;
  last_seq: number | null;
  /** pending | delivered | dead */
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  /** A notification channel's delivery of one signal (`alert:<signal id>`), made once; null for the feed's batches. */
  dedupe_key: string | null;
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
  /** 1: removed from the form (DELETE …/metadata/customer/{name}); stored values are kept. */
  hidden: Generated<number>;
  /** 1: the customer list's `keyword` also looks in this attribute's values. */
  searchable: Generated<number>;
}

/** A custom attribute's value of a customer, one row per value (a multi-option has several). */
export interface CustomerFieldValuesTable {
  app_id: string;
  customer_id: string;
  name: string;
  value: string;
  value_lower: string;
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
  /** The mobile number in international form (E.164), which matches are made by (migration 030; docs/customers.md). */
  phone_key: string | null;
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
  /** The customer's behaviour record count at the owner's last detail view (newCount = now − this). */
  seen_behaviour_count: Generated<number>;
  /** 1 while a merge into this customer still has history to move (migration 020). */
  merge_pending: Generated<number>;
  created_at: number;
  updated_at: number;
  /** The customer's latest activity (epoch ms; 0 for none): see migration 031 and docs/customers.md. */
  last_activity_at: Generated<number>;
  /**
   * The engagement score as an order key: log2(score at its reference time) + reference time / half-life,
   * 0 for none (migration 035; docs/scoring.md). The score now is 2^(key − now / half-life).
   */
  score_key: Generated<number>;
  /** When the score last rose (epoch ms; 0 for never): the hot leads' order. */
  score_rise_at: Generated<number>;
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
  /** Set for access_site and web_page_view records (migration 004): joins a visit to its page views. */
  web_access_log_id?: string | null;
}

export interface CallsTable {
  id: string;
  app_id: string;
  audio_url: string | null;
  m4a_audio_url: string | null;
  duration: number;
  call_status: number;
  audio_status: number;
  call_time: number;
  end_time: number | null;
  async_task_id: string | null;
  from_user_type: number;
  from_user_id: string;
  to_user_type: number;
  to_user_id: string;
  photo_uri: string | null;
  name: string | null;
  phone_num: string | null;
  /** The customer party, whichever side has user type 1. */
  customer_id: string | null;
  created_at: number;
}

export interface LinksTable {
  id: string;
  app_id: string;
  creator_id: number | null;
  name: string | null;
  short_name: string | null;
  creator_name: string | null;
  conference_id: string | null;
  remark: string | null;
  file1: string | null;
  file2: string | null;
  file3: string | null;
  file4: string | null;
  form_type: string | null;
  website: string | null;
  clue_id: string | null;
  src: string | null;
  customer_id: string | null;
  official_account_id: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_content: string | null;
  utm_term: string | null;
  /** JSON array text of interest tags. */
  tags: string | null;
  share_token: string;
  form_position: number | null;
  type: number;
  form_pop_time: number | null;
  is_directional: number;
  weixin_grant_type: number | null;
  /** Highest view-log `seq` the creator has seen; newer views are "new". */
  read_seq: number;
  created_at: number;
  updated_at: number;
  /** 1 active, 0 disabled (its page answers 410; migration 015). */
  status: Generated<number>;
  /** After this (epoch ms) the link no longer opens; null: never. */
  expires_at: number | null;
  /** scrypt hash of the passcode the viewer asks for; null: none. */
  passcode_hash: string | null;
  /** 1: the viewer offers the original file for download. */
  allow_download: Generated<number>;
  /** 1: the viewer asks for an e-mail address before the first page. */
  email_gate: Generated<number>;
  /** 1: a web page link (type 2) is shown in a frame rather than redirected to. */
  embed: Generated<number>;
  /** JSON array text of the form's fields; null: the default fields. */
  form_fields: string | null;
  disabled_at: number | null;
  /** What the viewer shows its readers (migration 028); null: the file's name, or the web page's host. */
  title: string | null;
  /** 1: the e-mail gate mails a one-time code and opens on it (migration 040). */
  email_verify: Generated<number>;
  /** JSON array text of the addresses and domains the e-mail gate lets through; null: anyone. */
  allow_list: string | null;
  /** JSON array text of the addresses and domains the e-mail gate refuses; null: none. */
  deny_list: string | null;
  /** The text the reader accepts before the document; null: none. */
  agreement: string | null;
  /** 1 for the agreement's first text, one more for each change; 0: never had one. */
  agreement_version: Generated<number>;
  /** 1: the viewer's page images (and download) carry who reads, when and from where (migration 043). */
  watermark: Generated<number>;
  /** The data room a link of type 4 shows (migration 044); null for the other types. */
  room_id: string | null;
}

export interface LinkViewLogsTable {
  /** Arrival order (auto-increment). */
  seq: Generated<number>;
  id: string;
  app_id: string;
  link_id: string;
  viewer_id: string | null;
  viewer_name: string | null;
  ip: string | null;
  location: string | null;
  system: string | null;
  client: string | null;
  clue_id: string | null;
  leave_time: string | null;
  spread_id: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_content: string | null;
  utm_term: string | null;
  view_time: number;
  total_duration: number | null;
  total_page: number | null;
  created_at: number;
  /** The viewer's visitor cookie (views the public viewer records; migration 015). */
  visitor_id: string | null;
  /** The customer the view is attributed to (a directed link, a form, an e-mail gate). */
  customer_id: string | null;
  /** The last beacon's sequence number (0: none, or an ingested view log). */
  beacon_seq: Generated<number>;
  /** When the last beacon arrived (epoch ms). */
  beacon_at: number | null;
  /** When the view was last closed (a leave beacon, or silence); null while it is open. */
  closed_at: number | null;
  /** The last leave time (epoch ms), the next close's `lastLeaveTime`. */
  left_at: number | null;
  /** The file the view opened (its first page's); views the public viewer records of a file link only (migration 042). */
  file_id: string | null;
  /** The version of that file the view opened in (migration 042). */
  file_version: number | null;
  /** The page the view was on at its last beacon: where it ended (migration 042). */
  last_page: number | null;
  /** The page count of the version the view opened (migration 042). */
  file_page_count: number | null;
  /** The address the reader gave on the link: the e-mail gate's when the view started, or the form's in the view (migration 045). */
  reader_email: string | null;
  /** 1: the gate's code proved `reader_email`. */
  reader_verified: Generated<number>;
}

export interface LinkViewDurationsTable {
  /** The view log's project (migration 013). */
  app_id: string;
  link_view_log_id: string;
  /** Order within the view log as the producer sent it. */
  position: number;
  id: string;
  file_id: string | null;
  file_name: string | null;
  file_url: string | null;
  page_index: string | null;
  duration: string | null;
  sort_index: number | null;
  created_at: number | null;
  ended_at: number | null;
  total: number | null;
  /** The view log's link; the public viewer's Duration items only (ingested ones: null; migration 042). */
  link_id: string | null;
  /** The version of the file the page was first read in; the public viewer's Duration items only (migration 042). */
  file_version: number | null;
}

export interface CluesTable {
  id: string;
  app_id: string;
  link_id: string | null;
  link_name: string | null;
  link_view_log_id: string | null;
  form_type: string | null;
  name: string | null;
  title: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  website: string | null;
  interested: string | null;
  /** Form fields beyond the documented ones, JSON object text. */
  extra: string | null;
  submit_at: number | null;
  created_at: number;
}

export interface PostsTable {
  id: string;
  app_id: string;
  owner_id: number | null;
  owner_name: string | null;
  title: string | null;
  send_way: string;
  send_time: number;
  sender_count: number;
  success_log_count: number;
  view_log_count: number;
  view_log_user_count: number;
  link_view_log_count: number;
  link_view_log_user_count: number;
  return_log_count: number;
  return_log_user_count: number;
  created_at: number;
}

/** Per customer × kind × day × key counts of behaviour records (kind: action, site, app_page, tag). */
export interface BehaviourRollupsTable {
  /** The customer's project (migration 013). */
  app_id: string;
  customer_id: string;
  kind: string;
  /** yyyy-MM-dd in the server's time zone. */
  day: string;
  key: string;
  count: number;
}

/** All-time counts per customer × kind × key (the overview's default window). */
export interface BehaviourTotalsTable {
  /** The customer's project (migration 013). */
  app_id: string;
  customer_id: string;
  kind: string;
  key: string;
  count: number;
}

/** When a user last made an authenticated request (member onlineStatus); outside `users` so that
 * touching it does not empty the access caches (migration 009). */
export interface UserPresenceTable {
  user_id: number;
  last_seen_at: number;
}

/** One change in a project and who made it (docs/operations.md, "Audit log"). */
export interface AuditLogTable {
  id: string;
  app_id: string;
  /** The platform user who made the change; null when no user did (the CLI). */
  actor_id: number | null;
  /** What was done, e.g. member.add (docs/projects.md lists them). */
  action: string;
  target_type: string;
  target_id: string;
  /** JSON: what changed. */
  detail: string | null;
  created_at: number;
}

/** A customer import job (docs/data-operations.md): its options, counters and how far it got. */
export interface CustomerImportsTable {
  id: string;
  app_id: string;
  /** The member who started it; null for the CLI. */
  created_by: number | null;
  /** The acting member: owner of the rows that name none. */
  owner_id: number;
  /** queued, running, done, failed */
  status: string;
  /** csv or xlsx */
  format: string;
  file_name: string;
  /** Where the uploaded file is kept until the job ends. */
  file_path: string;
  /** JSON: mapping, group, dry run, duplicate policy, encoding. */
  options: string;
  total: number;
  /** Data rows done (committed with their customers): a resumed job starts after them. */
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  error: string | null;
  /** A running job's holder keeps this in the future; a job whose lease ran out is taken up again. */
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

/** A bulk action on customers, run as a job (docs/customers.md "Bulk actions"). */
export interface CustomerBulkJobsTable {
  id: string;
  app_id: string;
  /** The member who asked; the job acts as them, their role read again for every batch. */
  created_by: number;
  /** assign, group, campaign, export, delete */
  action: string;
  /** queued, running, done, failed */
  status: string;
  /** JSON: the action's target (owner, group, campaign, file format). */
  options: string;
  /** JSON array: the customers it works through, frozen when it was asked for. */
  customer_ids: string;
  total: number;
  /** Customers done (committed with their changes): a resumed job starts after them. */
  processed: number;
  succeeded: number;
  failed: number;
  /** JSON: failures counted by code, and the first ones with their customer. */
  failures: string;
  /** An export's file, once written. */
  result_path: string | null;
  error: string | null;
  /** A running job's holder keeps this in the future; a job whose lease ran out is taken up again. */
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

/** A member's note on a customer (migration 034, docs/tasks.md). */
export interface NotesTable {
  id: string;
  app_id: string;
  customer_id: string;
  /** The platform user who wrote it. */
  author_id: number;
  /** Markdown, as written (@-mentions included). */
  content: string;
  /** JSON array of the platform user ids its @-mentions resolved to (members who may see the customer). */
  mentions: string;
  /** The Call record the note was logged with (POST …/customer/{id}/calls), or null. */
  call_id: string | null;
  created_at: number;
  updated_at: number;
}

/** Something to do about a customer by a due time (migration 034, docs/tasks.md). */
export interface TasksTable {
  id: string;
  app_id: string;
  customer_id: string;
  title: string;
  notes: string | null;
  /** call, email or todo */
  kind: string;
  due_at: number;
  assignee_id: number;
  creator_id: number;
  /** open or done */
  status: string;
  completed_at: number | null;
  completed_by: number | null;
  /** When the due scan announced the task (its `due` event); null until then, cleared by a reschedule. */
  due_signalled_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A platform user's alert preferences, whatever the project (migration 036, docs/alerts.md). */
export interface AlertSettingsTable {
  user_id: number;
  /** Comma list of the signals wanted: deck_opened, deck_read, revisit, forward, hot_lead, task_due, mention. */
  signals: string;
  /** The share of a deck's pages (%) a reading must reach for deck_read. */
  read_threshold: number;
  /** The days without a view of a link a revisit needs (1–90; migration 045). */
  revisit_days: Generated<number>;
  /** 1: signals go to the console's inbox. */
  inbox: number;
  /** off | instant | digest */
  email: string;
  /** IANA time zone of the digest hour. */
  time_zone: string;
  digest_hour: number;
  /** en-US | zh-CN: the language of e-mails. */
  locale: string;
  /** When the next digest is due; null unless email is digest. */
  next_digest_at: number | null;
  updated_at: number;
}

/** A member's alert choices in one project (migration 036). */
export interface AlertProjectSettingsTable {
  app_id: string;
  user_id: number;
  /** mine | all | none */
  scope: string;
  /** Comma list of signals for this project, or null: the member's own. */
  signals: string | null;
  read_threshold: number | null;
  /** The days without a view a revisit needs in this project, or null: the member's own (migration 045). */
  revisit_days: number | null;
  updated_at: number;
}

/** A signal, once per key in its project (migration 036). */
export interface AlertSignalsTable {
  id: string;
  app_id: string;
  /** What makes it one signal: `deck_opened:<view id>`, `task_due:<task id>:<due>`, … */
  key: string;
  /** deck_opened | deck_read | hot_lead | task_due | mention */
  signal: string;
  customer_id: string;
  /** What it is about besides the customer: a link, a task, a note; null for a hot lead. */
  subject: string | null;
  /** 1: recorded but not delivered (the customer's signals of the hour were spent, or an open coalesced). */
  suppressed: number;
  created_at: number;
}

/** A directed deck's reading in progress, until it ends (migration 036). */
export interface AlertReadingsTable {
  app_id: string;
  view_id: string;
  link_id: string;
  customer_id: string;
  started_at: number;
  /** The time of its latest page record. */
  last_page_at: number;
  /** When it was found over (its leave, or silence); null while in progress. */
  ended_at: number | null;
  /** A hot lead announced during the reading, told with its end: `{score, reasons}` JSON (migration 037); null: none. */
  hot: string | null;
}

/** A signal for one member: an inbox entry and its e-mail (migration 036). */
export interface NotificationsTable {
  id: string;
  app_id: string;
  user_id: number;
  signal_id: string;
  signal: string;
  customer_id: string;
  /** The words in the member's language: a headline and a sentence. */
  title: string;
  body: string;
  /** JSON: what the words say, as data (the link, pages, the task, the note…). */
  data: string;
  /** 1: shown in the inbox. */
  inbox: number;
  read_at: number | null;
  /** none | queued (an instant mail to send) | digest (for the next digest) | sent | dead | dropped */
  mail_status: string;
  mail_attempts: number;
  mail_next_at: number | null;
  mail_error: string | null;
  mailed_at: number | null;
  created_at: number;
}

/** A row of an import that failed, with why (problems.csv). */
export interface CustomerImportProblemsTable {
  app_id: string;
  import_id: string;
  /** The data row's number in the file (1 = the first row after the header). */
  row_number: number;
  /** JSON array of the row's cells as read. */
  cells: string;
  reason: string;
}

/** An uploaded file: a PDF, or an image shown as one page (docs/files.md). */
export interface FilesTable {
  id: string;
  app_id: string;
  /** Display name: the uploaded file's name, or the name given. */
  name: string;
  /** Bytes of the current version's original. */
  size: number;
  mime_type: string;
  page_count: number;
  /** processing, ready or failed. */
  status: string;
  /** 1, then one more with each new version. */
  version: number;
  /** Names the current version's content in storage; a new one with each version. */
  content_id: string;
  /** Pages of the current version rendered so far (they are rendered in order). */
  rendered_pages: number;
  /** Why rendering failed, when it did. */
  failure: string | null;
  /** Until when (epoch ms) the process rendering it holds it; null when none does. */
  lease_until: number | null;
  created_by: number;
  created_at: number;
  updated_at: number;
}

/** One rendered page of a file's current content: the sizes of its two images. */
export interface FilePagesTable {
  app_id: string;
  file_id: string;
  /** From 1. */
  page: number;
  content_id: string;
  desktop_width: number;
  desktop_height: number;
  desktop_bytes: number;
  phone_width: number;
  phone_height: number;
  phone_bytes: number;
  created_at: number;
}

/** A visitor (the viewer's cookie) tied to a customer of the project by a form or an e-mail gate (migration 015). */
export interface VisitorsTable {
  app_id: string;
  id: string;
  customer_id: string;
  created_at: number;
  updated_at: number;
  /** 1: tied by an e-mail address the visitor proved with a code (migration 040); an unverified tie never replaces it. */
  verified: Generated<number>;
}

/**
 * A merged customer and the customer it was merged into (migration 020): reads of the survivor's
 * history take the merged customers' too until `moved_at`, and ingestion naming a merged customer
 * lands on its survivor.
 */
export interface CustomerMergesTable {
  app_id: string;
  merged_id: string;
  survivor_id: string;
  merged_at: number;
  /** When the background job finished moving its history; null until then. */
  moved_at: number | null;
}

/** A site visitor (the snippet's first-party id) tied to a customer of the project (migration 016). */
export interface SiteVisitorsTable {
  app_id: string;
  id: string;
  customer_id: string;
  /** 1: by a signed customer id or a tracked e-mail click; 0: by a phone number, an e-mail address or a link form. */
  verified: number;
  /** `identify`, `click` or `link`. */
  via: string;
  created_at: number;
  updated_at: number;
}

/** A visit the snippet records (migration 016): the sweep writes its end once it falls silent. */
export interface SiteVisitsTable {
  app_id: string;
  visitor_id: string;
  /** The snippet's visit id (the records' `web_access_log_id`). */
  id: string;
  started_at: number;
  last_at: number;
  ended_at: number | null;
  site: string | null;
  referrer: string | null;
  /** The e-mail campaign whose tracked click began the visit. */
  post_id: string | null;
}

/** What an anonymous site visitor did (migration 016): a behaviour record's body, until joined to a customer. */
export interface SiteEventsTable {
  app_id: string;
  id: string;
  visitor_id: string;
  when_at: number;
  /** JSON of the behaviour record's body, without its customer. */
  body: string;
  created_at: number;
}

/** Anonymous site records a project stored on one day, against SITE_ANONYMOUS_DAILY_CAP (migration 026). */
export interface SiteAnonymousCountsTable {
  app_id: string;
  /** yyyy-MM-dd in the server's TIME_ZONE */
  day: string;
  records: number;
}

/** A project's logo (migration 033): its bytes are in the file storage under `<app_id>/logo/<token>`. */
export interface ProjectLogosTable {
  app_id: string;
  /** Random, new with each upload: the logo's public address names it. */
  token: string;
  /** image/png, image/jpeg or image/webp, from the bytes. */
  content_type: string;
  size: number;
  updated_at: number;
}

/** A link's wrong passcodes in its current window, and until when its passcode is refused (migration 026). */
export interface LinkPasscodeFailuresTable {
  app_id: string;
  link_id: string;
  window_start: number;
  failures: number;
  locked_until: number | null;
}

/** The one-time code of an address (canonical) on a link's e-mail gate, and its wrong codes (migration 040). */
export interface LinkEmailCodesTable {
  app_id: string;
  link_id: string;
  address: string;
  /** HMAC of the code; null once used, or after the lock its wrong codes started. */
  code_hash: string | null;
  expires_at: number | null;
  sent_at: number;
  window_start: number | null;
  failures: Generated<number>;
  locked_until: number | null;
}

/** An acceptance of a link's agreement (migration 040). */
export interface LinkAgreementAcceptancesTable {
  id: string;
  app_id: string;
  link_id: string;
  version: number;
  /** SHA-256 (hex) of the text accepted. */
  text_hash: string;
  email: string | null;
  name: string | null;
  visitor_id: string;
  accepted_at: number;
  ip: string | null;
  user_agent: string | null;
}

/** A secret the server made for itself (the view-token key), shared by its processes (migration 015). */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: number;
}

/** An e-mail campaign (migration 017); its counters are its Post record's. */
export interface CampaignsTable {
  id: string;
  app_id: string;
  owner_id: number;
  title: string;
  html: string;
  /** active, paused, cancelled, done */
  status: string;
  send_at: number;
  material_link_id: string | null;
  recipient_count: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** A target a campaign's rewritten link redirects to (migration 017). */
export interface CampaignLinksTable {
  app_id: string;
  campaign_id: string;
  position: number;
  url: string;
}

/** One recipient of a campaign: the durable send queue (migration 017). */
export interface CampaignRecipientsTable {
  id: string;
  app_id: string;
  campaign_id: string;
  customer_id: string;
  email: string;
  email_norm: string;
  /** The merge values, as JSON object text, read when the campaign was made. */
  fields: string;
  /** queued, sending, sent, failed, unknown, suppressed, cancelled */
  state: string;
  claimed_by: string | null;
  claimed_at: number | null;
  sent_at: number | null;
  error: string | null;
  opens: number;
  machine_opens: number;
  clicks: number;
  returns: number;
  created_at: number;
}

/** An address a project no longer mails (migration 017). */
export interface MailSuppressionsTable {
  app_id: string;
  email_norm: string;
  /** unsubscribe, bounce */
  reason: string;
  detail: string | null;
  created_at: number;
}

/** A project's scoring rules and its recompute (migration 035; docs/scoring.md). No row: the default rules. */
export interface ScoreSettingsTable {
  app_id: string;
  /** The rules as set (JSON object text); what is missing takes its default. */
  rules: string;
  /** The background job's place in recomputing the project's customers: the last id done, '' to start; null when none is due. */
  recompute_from: string | null;
  updated_by: number | null;
  updated_at: number;
}

/** A project's send settings for sequences (migration 038; docs/sequences.md). No row: the defaults. */
export interface SequenceSettingsTable {
  app_id: string;
  /** IANA zone of the send window when the customer's own is not known. */
  time_zone: string;
  /** The send window: minutes of the day, start included, end excluded. */
  window_start: number;
  window_end: number;
  /** ISO weekdays of the window (1 Monday … 7 Sunday), a comma list: also the business days of the waits. */
  days: string;
  /** E-mail steps per sending member per their local day. */
  daily_cap: number;
  /** Where customers' replies go (the inbound mail webhook reads them); null: none set. */
  reply_address: string | null;
  /** The inbound mail webhook's secret (its address ends with it). */
  inbound_token: string;
  updated_by: number | null;
  updated_at: number;
}

/** A sequence (migration 038; docs/sequences.md): its current version lives in sequence_versions. */
export interface SequencesTable {
  id: string;
  app_id: string;
  name: string;
  /** The current version (1, 2, …). */
  version: number;
  created_by: number;
  created_at: number;
  updated_at: number;
  /** Archived (DELETE): its enrolments exited `sequence_deleted`. */
  deleted_at: number | null;
}

/** What a version of a sequence says; immutable (migration 038). */
export interface SequenceVersionsTable {
  app_id: string;
  sequence_id: string;
  version: number;
  /** JSON array of steps `{type, waitDays, title, html, note}`. */
  steps: string;
  /** The deck (a share link) the sequence is about; null: none. */
  deck_link_id: string | null;
  /** JSON `{readShare, toStep}`: reading the deck this far jumps to the step; null: no jump. */
  jump: string | null;
  created_by: number;
  created_at: number;
}

/** A customer in a sequence (migration 038; docs/sequences.md). */
export interface SequenceEnrollmentsTable {
  id: string;
  app_id: string;
  sequence_id: string;
  /** The version the customer runs: an edit of the sequence never changes it. */
  version: number;
  customer_id: string;
  /** The sending member. */
  owner_id: number;
  /** active | paused | finished | exited */
  state: string;
  /** unsubscribed | bounced | form_submitted | replied | removed | playbook | sequence_deleted | customer_deleted | merged; null unless exited. */
  exit_reason: string | null;
  /** Index of the next step to run. */
  step: number;
  /** When the runner looks at it next; null unless active. Enrolment and resume set their own time: the runner places the step. */
  due_at: number | null;
  /** When the previous step ran; the enrolment's time before the first. */
  last_step_at: number;
  /** The runner's lease: who holds it, since when. */
  claimed_by: string | null;
  claimed_at: number | null;
  /** The customer's own directed share link of the sequence's deck. */
  own_link_id: string | null;
  enrolled_by: number;
  enrolled_at: number;
  updated_at: number;
  /** When it finished or exited. */
  ended_at: number | null;
}

/** A step run of an enrolment, at most once per step (migration 038). */
export interface SequenceStepRunsTable {
  app_id: string;
  enrollment_id: string;
  step: number;
  sequence_id: string;
  version: number;
  customer_id: string;
  /** The step's type: email | manual_email | call | task */
  kind: string;
  /** queued | sent | task | skipped */
  outcome: string;
  /** Why, for a skipped step (`no_email`, `suppressed`, …); null otherwise. */
  detail: string | null;
  /** The campaigns recipient row of an e-mail step. */
  mail_id: string | null;
  /** The task of a call, task or manual e-mail step. */
  task_id: string | null;
  owner_id: number;
  /** The sending member's local day (yyyy-mm-dd), for the daily cap. */
  day: string;
  created_at: number;
}

/** A customer's engagement score (migration 035; docs/scoring.md). */
export interface CustomerScoresTable {
  app_id: string;
  customer_id: string;
  /** The score at `ref_at`. */
  value: number;
  ref_at: number;
  /** The points of the last rise, at `rise_at`. */
  rise: number;
  rise_at: number;
  /** The top contributions (JSON array text). */
  reasons: string;
  /** The latest signal that earned points (JSON object text). */
  last_signal: string | null;
  /** What the rules remember: the latest link view, recent readings and what they earned (JSON object text). */
  marks: string;
  updated_at: number;
}

export interface Database {
  users: UsersTable;
  user_presence: UserPresenceTable;
  oauth_clients: OauthClientsTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  verification_codes: VerificationCodesTable;
  login_failures: LoginFailuresTable;
  apps: AppsTable;
  members: MembersTable;
  invitations: InvitationsTable;
  outbox: OutboxTable;
  event_cursors: EventCursorsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  customer_metadata: CustomerMetadataTable;
  customer_groups: CustomerGroupsTable;
  customers: CustomersTable;
  customer_field_values: CustomerFieldValuesTable;
  behaviour_logs: BehaviourLogsTable;
  behaviour_totals: BehaviourTotalsTable;
  calls: CallsTable;
  links: LinksTable;
  link_view_logs: LinkViewLogsTable;
  link_view_durations: LinkViewDurationsTable;
  visitors: VisitorsTable;
  customer_merges: CustomerMergesTable;
  site_visitors: SiteVisitorsTable;
  site_visits: SiteVisitsTable;
  site_events: SiteEventsTable;
  site_anonymous_counts: SiteAnonymousCountsTable;
  link_passcode_failures: LinkPasscodeFailuresTable;
  link_email_codes: LinkEmailCodesTable;
  link_agreement_acceptances: LinkAgreementAcceptancesTable;
  server_secrets: ServerSecretsTable;
  clues: CluesTable;
  posts: PostsTable;
  behaviour_rollups: BehaviourRollupsTable;
  audit_log: AuditLogTable;
  files: FilesTable;
  file_pages: FilePagesTable;
  campaigns: CampaignsTable;
  campaign_links: CampaignLinksTable;
  campaign_recipients: CampaignRecipientsTable;
  mail_suppressions: MailSuppressionsTable;
  customer_imports: CustomerImportsTable;
  customer_import_problems: CustomerImportProblemsTable;
  customer_bulk_jobs: CustomerBulkJobsTable;
  notes: NotesTable;
  tasks: TasksTable;
  project_logos: ProjectLogosTable;
  alert_settings: AlertSettingsTable;
  alert_project_settings: AlertProjectSettingsTable;
  alert_signals: AlertSignalsTable;
  alert_readings: AlertReadingsTable;
  notifications: NotificationsTable;
  score_settings: ScoreSettingsTable;
  customer_scores: CustomerScoresTable;
  sequence_settings: SequenceSettingsTable;
  sequences: SequencesTable;
  sequence_versions: SequenceVersionsTable;
  sequence_enrollments: SequenceEnrollmentsTable;
  sequence_step_runs: SequenceStepRunsTable;
  playbooks: PlaybooksTable;
  playbook_hits: PlaybookHitsTable;
  playbook_runs: PlaybookRunsTable;
  rooms: RoomsTable;
  room_items: RoomItemsTable;
}

/** A playbook: when a customer does the trigger, if the filters hold, do the actions (migration 039, docs/playbooks.md). */
export interface PlaybooksTable {
  id: string;
  app_id: string;
  name: string;
  /** 1: evaluated from the feed; 0: kept, not evaluated. */
  enabled: number;
  /** JSON `{kind, conditions}`. */
  trigger_def: string;
  /** JSON `{ownerIds?, groupIds?, fields?}`. */
  filters: string;
  /** JSON array of actions. */
  actions: string;
  /** once | per_period | every_time */
  limit_kind: string;
  /** per_period: the period in days; null otherwise. */
  limit_days: number | null;
  /** Signs its webhook calls (`x-rapport-signature`, as webhooks are signed). */
  secret: string;
  created_by: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/** A customer's doing of a playbook's trigger, once per key (a view, a record): what repeats count (migration 039). */
export interface PlaybookHitsTable {
  app_id: string;
  playbook_id: string;
  /** `view:<view id>`, `record:<record id>`, `score:<event id>` */
  key: string;
  customer_id: string;
  /** When the customer did it (the record's time). */
  at: number;
}

/** A playbook acting on a customer, once per run key (migration 039). */
export interface PlaybookRunsTable {
  id: string;
  app_id: string;
  playbook_id: string;
  customer_id: string;
  /** Unique in the project: `<playbook>:<customer>` for `once`, `<playbook>:<hit key>` otherwise. */
  run_key: string;
  hit_key: string;
  /** The feed event that made it act. */
  event_id: string;
  /** When that event was recorded (the lag is `created_at - recorded_at`). */
  recorded_at: number;
  /** JSON array: what each action did (`{type, ok, detail?, error?}`). */
  outcome: string;
  /** pending | sent | dead; null without a webhook action. */
  webhook_status: string | null;
  webhook_attempts: number;
  webhook_next_at: number | null;
  webhook_error: string | null;
  created_at: number;
}

/** A data room: a named set of the project's files in folders, shared by a link of type 4 (migration 044, docs/rooms.md). */
export interface RoomsTable {
  id: string;
  app_id: string;
  name: string;
  /** The member who made it: Sales members change their own rooms. */
  creator_id: number;
  created_at: number;
  updated_at: number;
}

/** A folder or document of a room's tree, in reading order (migration 044). */
export interface RoomItemsTable {
  app_id: string;
  room_id: string;
  /** Depth-first reading order, from 0. */
  position: number;
  /** The position of the folder it is in; null at the root. */
  parent: number | null;
  /** folder | file */
  kind: string;
  /** A folder's name; null for a document. */
  name: string | null;
  /** A document's file (once per room); null for a folder. */
  file_id: string | null;
}
