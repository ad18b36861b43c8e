import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { withoutAppIdCheck } from './app-id-check.ts';
import type { DialectName } from './dialect.ts';
import * as m001 from './migrations/001_foundation.ts';
import * as m002 from './migrations/002_customers.ts';
import * as m004 from './migrations/004_histories.ts';
import * as m005 from './migrations/005_events_out.ts';
import * as m006 from './migrations/006_behaviour_totals.ts';
import * as m007 from './migrations/007_change_notifications.ts';
import * as m008 from './migrations/008_behaviour_seen_counts.ts';
import * as m009 from './migrations/009_user_presence.ts';
import * as m010 from './migrations/010_ingest_write_costs.ts';
import * as m011 from './migrations/011_member_acceptance.ts';
import * as m012 from './migrations/012_audit_log.ts';
import * as m013 from './migrations/013_app_id_everywhere.ts';
import * as m014 from './migrations/014_files.ts';
import * as m015 from './migrations/015_link_sharing.ts';
import * as m016 from './migrations/016_site_tracking.ts';
import * as m017 from './migrations/017_campaigns.ts';
import * as m018 from './migrations/018_customer_imports.ts';
import * as m019 from './migrations/019_custom_fields.ts';
import * as m020 from './migrations/020_customer_merge.ts';
import * as m021 from './migrations/021_secret_rotation.ts';
import * as m022 from './migrations/022_password_reset.ts';
import * as m025 from './migrations/025_site_anonymous_expiry.ts';
import * as m026 from './migrations/026_public_endpoint_limits.ts';
import * as m027 from './migrations/027_erasure_indexes.ts';
import * as m028 from './migrations/028_link_titles.ts';
import * as m029 from './migrations/029_invitations.ts';
import * as m030 from './migrations/030_phone_keys_and_regions.ts';
import * as m031 from './migrations/031_customer_list_orders.ts';
import * as m032 from './migrations/032_customer_bulk_jobs.ts';
import * as m033 from './migrations/033_site_check_and_logos.ts';
import * as m034 from './migrations/034_notes_and_tasks.ts';
import * as m035 from './migrations/035_engagement_scores.ts';
import * as m036 from './migrations/036_alerts.ts';
import * as m037 from './migrations/037_hot_lead_readings.ts';
import * as m038 from './migrations/038_sequences.ts';
import * as m039 from './migrations/039_playbooks.ts';
import * as m040 from './migrations/040_link_verification.ts';
import * as m041 from './migrations/041_share_domains.ts';
import * as m042 from './migrations/042_view_file_versions.ts';
import * as m043 from './migrations/043_link_watermarks.ts';
import * as m044 from './migrations/044_data_rooms.ts';
import * as m045 from './migrations/045_share_signals.ts';
import type { Database } from './schema.ts';

/**
 * A migration gets the dialect's name and spells out its own DDL for it: what a released migration
 * does must never change with today's code (docs/migrations.md).
 */
interface PortableMigration {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
}

/** Every migration, in order. Names are stable: they are recorded in the database. */
const MIGRATIONS: Record<string, PortableMigration> = {
  '001_foundation': m001,
  '002_customers': m002,
  '004_histories': m004,
  '005_events_out': m005,
  '006_behaviour_totals': m006,
  '007_change_notifications': m007,
  '008_behaviour_seen_counts': m008,
  '009_user_presence': m009,
  '010_ingest_write_costs': m010,
  '011_member_acceptance': m011,
  '012_audit_log': m012,
  '013_app_id_everywhere': m013,
  '014_files': m014,
  '015_link_sharing': m015,
  '016_site_tracking': m016,
  '017_campaigns': m017,
  '018_customer_imports': m018,
  '019_custom_fields': m019,
  '020_customer_merge': m020,
  '021_secret_rotation': m021,
  '022_password_reset': m022,
  '025_site_anonymous_expiry': m025,
  '026_public_endpoint_limits': m026,
  '027_erasure_indexes': m027,
  '028_link_titles': m028,
  '029_invitations': m029,
  '030_phone_keys_and_regions': m030,
  '031_customer_list_orders': m031,
  '032_customer_bulk_jobs': m032,
  '033_site_check_and_logos': m033,
  '034_notes_and_tasks': m034,
  '035_engagement_scores': m035,
  '036_alerts': m036,
  '037_hot_lead_readings': m037,
  '038_sequences': m038,
  '039_playbooks': m039,
  '040_link_verification': m040,
  '041_share_domains': m041,
  '042_view_file_versions': m042,
  '043_link_watermarks': m043,
  '044_data_rooms': m044,
  '045_share_signals': m045,
};

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(MIGRATIONS)) {
      out[name] = { up: (db) => m.up(db, this.dialect) };
    }
    return out;
  }
}

export interface MigrationResult {
  applied: string[];
}

/**
 * Brings the schema up to date. Safe to run concurrently: Kysely takes a migration lock. Migrations
 * rewrite whole tables on purpose: their statements are exempt from the app_id check.
 */
export function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<MigrationResult> {
  return withoutAppIdCheck(() => migrate(db, dialect));
}

async function migrate(db: Kysely<Database>, dialect: DialectName): Promise<MigrationResult> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(dialect),
    migrationTableName: 'rapport_migrations',
    migrationLockTableName: 'rapport_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/** Names of this build's migrations the database has not applied (throws when it has no migration table). */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from rapport_migrations`.execute(db);
  const applied = new Set(rows.map((r) => r.name));
  return Object.keys(MIGRATIONS).filter((name) => !applied.has(name));
}
