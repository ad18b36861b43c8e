import type { ColumnDefinitionBuilder, Kysely } from 'kysely';

/** Event delivery: feed positions on the outbox, named cursors, webhooks and their deliveries. */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  // Auto-incrementing integer keys: `integer primary key autoincrement` on SQLite, `serial primary key` on PostgreSQL.
  const serial = dialect === 'sqlite' ? 'integer' : 'serial';
  const serialKey = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey());
  // Position in commit order, assigned by the sequencer once the row is committed (null until then).
  await db.schema.alterTable('outbox').addColumn('seq', 'bigint').execute();
  await db.schema.createIndex('outbox_seq_uq').on('outbox').column('seq').unique().execute();
  await db.schema.createIndex('outbox_app_seq_idx').on('outbox').columns(['app_id', 'seq']).execute();
  // Superseded by outbox_app_seq_idx (the feed reads by position); one index less on every event write.
  await db.schema.dropIndex('outbox_app_idx').execute();
  await db.schema.createIndex('outbox_unsequenced_idx').on('outbox').columns(['seq', 'created_at', 'id']).execute();

  await db.schema
    .createTable('event_cursors')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('domain_types', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('cursor', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_app_idx').on('webhooks').columns(['app_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', serial, serialKey)
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id'))
    .addColumn('event_ids', 'text', (c) => c.notNull())
    .addColumn('first_seq', 'bigint')
    .addColumn('last_seq', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_deliveries_hook_idx').on('webhook_deliveries').columns(['webhook_id', 'status', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
}
