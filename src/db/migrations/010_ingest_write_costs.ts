import { type Kysely, sql } from 'kysely';

/**
 * Fewer index writes per ingested record (ADR 0010).
 *
 * Outbox: a row is written without a feed position and gets one from the sequencer moments later.
 * The three indexes that held `seq` took an entry for the null at insert and another for the
 * position, and the pending-rows index kept every sequenced row (one entry per event ever kept).
 * Now the position indexes hold sequenced rows only and the pending index pending rows only: an
 * insert writes the primary key and the small pending index, and the pending index stays as small
 * as the backlog. Queries by position (`seq > ?`, `seq is not null`) imply the indexes' condition.
 *
 * Rollups and totals are counters updated by every batch: on PostgreSQL, free room in their pages
 * lets an update keep the new row version on the same page without a new index entry.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema.dropIndex('outbox_unsequenced_idx').execute();
  await db.schema.dropIndex('outbox_seq_uq').execute();
  await db.schema.dropIndex('outbox_app_seq_idx').execute();
  await db.schema.createIndex('outbox_pending_idx').on('outbox').columns(['created_at', 'id']).where(sql.ref('seq'), 'is', null).execute();
  await db.schema.createIndex('outbox_seq_uq').on('outbox').column('seq').unique().where(sql.ref('seq'), 'is not', null).execute();
  await db.schema.createIndex('outbox_app_seq_idx').on('outbox').columns(['app_id', 'seq']).where(sql.ref('seq'), 'is not', null).execute();

  // SQLite updates rows in place and has no such setting.
  if (dialect === 'postgres') {
    await sql`alter table "behaviour_totals" set (fillfactor = 50)`.execute(db);
    await sql`alter table "behaviour_rollups" set (fillfactor = 80)`.execute(db);
  }
}
