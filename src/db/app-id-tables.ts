/**
 * The tables of the app_id rule (ADR 0018; the check is app-id-check.ts): which tables hold one
 * project's rows and which column names the project (TABLE_SCOPE), and the statements that work
 * across projects on purpose, with why (CROSS_PROJECT), tagged in their SQL with `crossProject(key)`.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Database } from './schema.ts';

/** A table of one project's rows, and the column that names the project. */
interface ProjectTable {
  readonly scope: 'project';
  readonly column: 'app_id' | 'id';
}
/** A table that belongs to no project, and why. */
interface GlobalTable {
  readonly scope: 'global';
  readonly why: string;
}
export type TableScope = ProjectTable | GlobalTable;

const PROJECT: ProjectTable = { scope: 'project', column: 'app_id' };

/**
 * Every table of the schema, project or global. A table missing here fails to compile (the
 * Database interface) and fails test/db/app-id-check.test.ts (the migrated schema); a statement
 * naming a table that is not here fails the check.
 */
export const TABLE_SCOPE = {
  // The project itself: its id is the project column every other project table refers to.
  apps: { scope: 'project', column: 'id' },
  members: PROJECT,
  invitations: PROJECT,
  customer_metadata: PROJECT,
  customer_groups: PROJECT,
  customers: PROJECT,
  customer_field_values: PROJECT,
  behaviour_logs: PROJECT,
  behaviour_rollups: PROJECT,
  behaviour_totals: PROJECT,
  calls: PROJECT,
  links: PROJECT,
  link_view_logs: PROJECT,
  link_view_durations: PROJECT,
  clues: PROJECT,
  posts: PROJECT,
  outbox: PROJECT,
  webhooks: PROJECT,
  webhook_deliveries: PROJECT,
  audit_log: PROJECT,
  files: PROJECT,
  file_pages: PROJECT,
  customer_imports: PROJECT,
  customer_import_problems: PROJECT,
  customer_bulk_jobs: PROJECT,
  notes: PROJECT,
  tasks: PROJECT,
  visitors: PROJECT,
  customer_merges: PROJECT,
  site_visitors: PROJECT,
  site_visits: PROJECT,
  site_events: PROJECT,
  site_anonymous_counts: PROJECT,
  project_logos: PROJECT,
  link_passcode_failures: PROJECT,
  link_email_codes: PROJECT,
  link_agreement_acceptances: PROJECT,
  campaigns: PROJECT,
  campaign_links: PROJECT,
  campaign_recipients: PROJECT,
  mail_suppressions: PROJECT,
  alert_project_settings: PROJECT,
  alert_signals: PROJECT,
  alert_readings: PROJECT,
  notifications: PROJECT,
  alert_settings: { scope: 'global', why: "a platform user's own alert preferences (signals, e-mail, time zone), whatever the project" },
  score_settings: PROJECT,
  customer_scores: PROJECT,
  sequence_settings: PROJECT,
  sequences: PROJECT,
  sequence_versions: PROJECT,
  sequence_enrollments: PROJECT,
  sequence_step_runs: PROJECT,
  playbooks: PROJECT,
  playbook_hits: PROJECT,
  playbook_runs: PROJECT,
  rooms: PROJECT,
  room_items: PROJECT,
  server_secrets: {
    scope: 'global',
    why: "the server's own signing keys (share-link view tokens, campaign tracking tokens), not a project's",
  },
  users: { scope: 'global', why: 'a platform account, member of any number of projects' },
  user_presence: { scope: 'global', why: 'when a platform user was last seen, whatever the project' },
  oauth_clients: { scope: 'global', why: 'the OAuth clients of the platform, not of a project' },
  access_tokens: { scope: 'global', why: "a user's tokens: they reach every project the user is a member of" },
  refresh_tokens: { scope: 'global', why: "a user's tokens: they reach every project the user is a member of" },
  verification_codes: { scope: 'global', why: 'codes sent to a phone or e-mail before any account or project exists' },
  login_failures: { scope: 'global', why: 'log-in throttling per user name and address' },
  event_cursors: { scope: 'global', why: "the relay's positions in the one feed order of every project's events" },
  change_epoch: { scope: 'global', why: "SQLite's per-topic change counters for the in-process caches (migration 007)" },
  rapport_migrations: { scope: 'global', why: 'the migrator: the migrations a database has applied' },
  rapport_migrations_lock: { scope: 'global', why: "the migrator's lock" },
} as const satisfies Record<keyof Database | 'change_epoch' | 'rapport_migrations' | 'rapport_migrations_lock', TableScope>;

/**
 * The statements that work across projects on purpose, by the key their SQL is tagged with
 * (`crossProject(key)`). Each says why it cannot name one project. Keep this list short: a new
 * entry needs a reason of this kind, not convenience.
 */
export const CROSS_PROJECT = {
  'user-projects':
    "A user's own projects and memberships across every project: the project list (my-apps), the membership list, " +
    'and the Sales members of the projects the user created (user info).',
  'record-by-id':
    'The interface addresses some records by id alone, without their project (customer detail and overview, a ' +
    "link's view logs): the statement finds the record, and its project is then checked against the caller's " +
    'memberships. Ids are unique across projects.',
  'ingest-global-ids':
    'Ingestion refuses a record id that another project already uses, and a share token another link has: ' +
    "those are unique across projects, so the lookup has to see every project's rows.",
  'share-token':
    'A shared link is found by its share token alone (the public viewer, its beacons and form know nothing else), and a ' +
    'new token is checked unique: tokens are unique across projects, and the link found names the project every later statement uses.',
  'invitation-token':
    "An invitation is found by its link's token alone (the accept page of someone not yet a member knows nothing else): tokens " +
    'are unique across projects, and the invitation found names the project every later statement uses.',
  'view-sweep': 'Closing the share-link views that fell silent, in every project: each server sweeps whatever views stopped sending.',
  'site-key':
    "The site snippet's collect calls name only the site key (a public page knows nothing else): the project is found by its key, " +
    'unique across projects, and the project found names every later statement.',
  'link-code-expiry':
    "Deleting the share-link e-mail gate's codes whose time is over (the code, its wrong codes and its lock), in every project: each server expires what has aged.",
  'share-domains':
    "A request's Host names a project's share domain alone (a viewer's browser knows nothing else), and a claim is checked unique: " +
    'the domains are unique across projects, read all at once into an in-process map, and the project found names every later statement.',
  'site-visit-sweep':
    'Recording the end of site visits that fell silent, in every project: each server sweeps whatever visits stopped sending.',
  'site-anonymous-expiry':
    "Deleting anonymous site visitors' records and visits older than SITE_ANONYMOUS_DAYS, in every project: each server expires what has aged.",
  'site-quota-prune':
    'Deleting the daily counts of anonymous site records (SITE_ANONYMOUS_DAILY_CAP) of days gone by, in every project: each server prunes what has passed.',
  'event-sequencer': "The sequencer gives committed events their positions in ONE feed order over every project's outbox rows.",
  'mail-queue':
    'The campaign senders look for campaigns due to send, and for recipients a stopped process left in sending, in every ' +
    'project: one queue of mail per server; each row found names the project every later statement uses.',
  'customer-import-worker':
    'The import worker looks for customer imports waiting to run (queued, or left running by a stopped process) in every project: one queue of work per server.',
  'customer-bulk-worker':
    'The bulk worker looks for bulk customer jobs waiting to run (queued, or left running by a stopped process) in every project: one queue of work per server.',
  'customer-bulk-files':
    'The bulk worker removes the files of bulk exports finished a day ago, in every project: one sweep per server; each row found names the project it updates.',
  'file-renderer': 'The page renderer looks for files waiting to be rendered in every project: one queue of work per server.',
  'task-due-scan':
    'The background job task-due finds open tasks that came due and are not yet announced, in every project: one queue of work per ' +
    'server; each row found names the project of its update and its event.',
  'phone-keys':
    'The background job phone-keys finds customers stored before phone keys existed (a mobile number without its key) in every project, ' +
    "and keys them by their project's region: one pass per server until none is left; each row found names the project of its update.",
  'score-recompute':
    'The background job scores looks for projects whose customers are to be scored again from their records (after an upgrade, ' +
    "or a change of the project's rules) in every project: one queue of work per server; each project found names every later statement.",
  'merge-rewrite':
    "The background job that moves merged customers' history to the customer they were merged into looks for " +
    'merges still to move in every project: one queue of work per server; each move then names its project.',
  'feed-reader':
    "A named reader of the feed (the alerts' evaluator) reads every project's events after its position, in the ONE feed order, " +
    'as the NATS sink does; each event names the project of every later statement.',
  'user-notifications':
    "A user's own alert choices in each project, their inbox and their digest's lines: records addressed to one user in every " +
    "project they belong to; the inbox joins the user's active memberships and the customers they may see in the same statement.",
  'alert-readings':
    "The alerts' evaluator looks for readings of directed decks that went quiet, in every project: one queue per server; each row names its project.",
  'alert-mail':
    "The alerts' mailer looks for instant alert e-mails due to be sent, in every project: one queue per server; each row names its project.",
  'alert-prune':
    'Deleting alerts (signals, notifications, readings) older than their retention, in every project: each server prunes what has aged.',
  'playbook-evaluator':
    "The playbooks' evaluator reads which behaviour actions the enabled playbooks of every project are triggered by (what the feed " +
    'reader reads the bodies of), and looks for webhook calls due to be made, in every project: one queue per server; each row names its project.',
  'sequence-runner':
    'The sequences runner claims the enrolments due to run their next step in every project: one queue of work per server; ' +
    'each row claimed names the project of every later statement.',
  'inbound-mail-token':
    "The inbound mail webhook names only its token (a mail provider's post knows nothing else): the project is found by its " +
    "sequence settings' token, unique across projects, and the project found names every later statement.",
  'event-relay':
    'The relay walks the outbox and the webhook deliveries of every project: it plans and sends due deliveries, ' +
    'publishes to NATS by feed position, prunes what every sink has, and reports the backlog to metrics.',
} as const;
export type CrossProjectKey = keyof typeof CROSS_PROJECT;

/** The SQL comment that marks a statement as one of CROSS_PROJECT's (add it with a builder's `modifyEnd`). */
export function crossProject(key: CrossProjectKey): RawBuilder<unknown> {
  return sql.raw(`/* cross-project: ${key} */`);
}

/** Finds the tag crossProject writes, and the key in it. */
export const CROSS_PROJECT_TAG = /\/\*\s*cross-project:\s*([A-Za-z0-9_-]+)\s*\*\//;
