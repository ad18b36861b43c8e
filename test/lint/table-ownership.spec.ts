/**
 * Each table has one owner module; another module reads or writes it through the owner's service (or
 * a read model the owner exports), never from its own repositories. This reads every repository of
 * each module (its repository.ts and each <caller>.repository.ts) for the tables they name (quoted
 * table names, and words after FROM, JOIN, INTO and UPDATE in raw SQL) and fails on a table a module
 * does not own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The owner of every table of src/db/schema.ts. `*`: shared, each module keeps its own row (server_secrets). */
const OWNERS: Record<string, string> = {
  users: 'accounts',
  user_presence: 'accounts',
  access_tokens: 'accounts',
  refresh_tokens: 'accounts',
  verification_codes: 'accounts',
  login_failures: 'accounts',
  oauth_clients: 'clients',
  apps: 'projects',
  project_logos: 'projects',
  members: 'members',
  invitations: 'members',
  outbox: 'events',
  event_cursors: 'events',
  webhooks: 'webhooks',
  webhook_deliveries: 'webhooks',
  customer_metadata: 'metadata',
  customer_groups: 'groups',
  customers: 'customers',
  customer_field_values: 'customers',
  behaviour_logs: 'behaviour',
  behaviour_totals: 'behaviour',
  behaviour_rollups: 'behaviour',
  calls: 'histories',
  clues: 'histories',
  posts: 'histories',
  links: 'links',
  link_view_logs: 'links',
  link_view_durations: 'links',
  visitors: 'links',
  link_passcode_failures: 'links',
  link_email_codes: 'links',
  link_agreement_acceptances: 'links',
  customer_merges: 'merges',
  site_visitors: 'site',
  site_visits: 'site',
  site_events: 'site',
  site_anonymous_counts: 'site',
  server_secrets: '*',
  audit_log: 'audit',
  files: 'files',
  file_pages: 'files',
  campaigns: 'campaigns',
  campaign_links: 'campaigns',
  campaign_recipients: 'campaigns',
  mail_suppressions: 'campaigns',
  customer_imports: 'dataops',
  score_settings: 'scoring',
  customer_scores: 'scoring',
  customer_import_problems: 'dataops',
  customer_bulk_jobs: 'bulk',
  notes: 'tasks',
  tasks: 'tasks',
  alert_settings: 'alerts',
  alert_project_settings: 'alerts',
  alert_signals: 'alerts',
  alert_readings: 'alerts',
  notifications: 'alerts',
  sequence_settings: 'sequences',
  sequences: 'sequences',
  sequence_versions: 'sequences',
  sequence_enrollments: 'sequences',
  sequence_step_runs: 'sequences',
  playbooks: 'playbooks',
  playbook_hits: 'playbooks',
  playbook_runs: 'playbooks',
  rooms: 'rooms',
  room_items: 'rooms',
};

function tablesNamed(source: string): Set<string> {
  const found = new Set<string>();
  for (const m of source.matchAll(/['"`]([a-z_]+)(?:\.[a-z_]+)?(?: as [a-z_]+)?['"`]/g)) if (m[1] && m[1] in OWNERS) found.add(m[1]);
  for (const m of source.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)/g)) if (m[1] && m[1] in OWNERS) found.add(m[1]);
  return found;
}

describe('table ownership', () => {
  const schema = fs.readFileSync(path.join(ROOT, 'src/db/schema.ts'), 'utf8');
  const database = /export interface Database \{([\s\S]*?)\n\}/.exec(schema)?.[1] ?? '';
  const tables = [...database.matchAll(/^ {2}([a-z_]+):/gm)].map((m) => m[1] as string);

  it('every table has an owner', () => {
    expect(tables.length).toBeGreaterThan(30);
    expect(tables.filter((t) => !(t in OWNERS))).toEqual([]);
    expect(Object.keys(OWNERS).filter((t) => !tables.includes(t))).toEqual([]);
  });

  const modules = fs.readdirSync(path.join(ROOT, 'src/modules'), { withFileTypes: true }).filter((e) => e.isDirectory());
  /** A module's repositories: repository.ts and <caller>.repository.ts. */
  const repositoriesOf = (name: string) =>
    fs
      .readdirSync(path.join(ROOT, 'src/modules', name))
      .filter((f) => f === 'repository.ts' || f.endsWith('.repository.ts'))
      .map((f) => path.join(ROOT, 'src/modules', name, f));

  it.each(modules.map((e) => e.name))("%s's repositories name only its own tables", (name) => {
    const named = new Set<string>();
    for (const file of repositoriesOf(name)) for (const t of tablesNamed(fs.readFileSync(file, 'utf8'))) named.add(t);
    const crossing = [...named].filter((t) => OWNERS[t] !== name && OWNERS[t] !== '*').sort();
    expect(crossing, "read or write it through its owner's service or read model").toEqual([]);
  });
});
