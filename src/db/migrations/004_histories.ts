import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';

/**
 * Histories that producers push through the ingestion endpoint (docs/interface.md §12): calls, links and
 * their view logs (with page-turn durations), form submissions (clues), mass e-mail sends, and the
 * per-customer rollups that answer the overview without scanning behaviour records.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  // Auto-incrementing integer keys: `integer primary key autoincrement` on SQLite, `serial primary key` on PostgreSQL.
  const serial = dialect === 'sqlite' ? 'integer' : 'serial';
  const serialKey = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey());
  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('audio_url', 'text')
    .addColumn('m4a_audio_url', 'text')
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('call_status', 'integer', (c) => c.notNull())
    .addColumn('audio_status', 'integer', (c) => c.notNull())
    .addColumn('call_time', 'bigint', (c) => c.notNull())
    .addColumn('end_time', 'bigint')
    .addColumn('async_task_id', 'text')
    .addColumn('from_user_type', 'integer', (c) => c.notNull())
    .addColumn('from_user_id', 'text', (c) => c.notNull())
    .addColumn('to_user_type', 'integer', (c) => c.notNull())
    .addColumn('to_user_id', 'text', (c) => c.notNull())
    .addColumn('photo_uri', 'text')
    .addColumn('name', 'text')
    .addColumn('phone_num', 'text')
    // The customer party (from or to, whichever has user type 1), for the customer object.
    .addColumn('customer_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('calls_app_time_idx').on('calls').columns(['app_id', 'call_time', 'id']).execute();
  // `svc_user_id` selects caller or receiver: one range scan per side.
  await db.schema.createIndex('calls_from_idx').on('calls').columns(['app_id', 'from_user_id', 'call_time', 'id']).execute();
  await db.schema.createIndex('calls_to_idx').on('calls').columns(['app_id', 'to_user_id', 'call_time', 'id']).execute();

  let links = db.schema
    .createTable('links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('creator_id', 'integer');
  for (const col of [
    'name',
    'short_name',
    'creator_name',
    'conference_id',
    'remark',
    'file1',
    'file2',
    'file3',
    'file4',
    'form_type',
    'website',
    'clue_id',
    'src',
    'customer_id',
    'official_account_id',
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_content',
    'utm_term',
    /** JSON array text of interest tags. */
    'tags',
  ]) {
    links = links.addColumn(col, 'text');
  }
  await links
    .addColumn('share_token', 'text', (c) => c.notNull().unique())
    .addColumn('form_position', 'integer')
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('form_pop_time', 'bigint')
    .addColumn('is_directional', 'integer', (c) => c.notNull())
    .addColumn('weixin_grant_type', 'integer')
    // Highest view-log sequence number the creator has seen: newViewCount counts views after it.
    .addColumn('read_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('links_app_created_idx').on('links').columns(['app_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('links_creator_created_idx').on('links').columns(['app_id', 'creator_id', 'created_at', 'id']).execute();

  let views = db.schema
    .createTable('link_view_logs')
    // Arrival order; lets "views since the creator last read" be a range of one index.
    .addColumn('seq', serial, serialKey)
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('link_id', 'text', (c) => c.notNull());
  for (const col of [
    'viewer_id',
    'viewer_name',
    'ip',
    'location',
    'system',
    'client',
    'clue_id',
    'leave_time',
    'spread_id',
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_content',
    'utm_term',
  ]) {
    views = views.addColumn(col, 'text');
  }
  await views
    .addColumn('view_time', 'bigint', (c) => c.notNull())
    .addColumn('total_duration', 'bigint')
    .addColumn('total_page', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('link_view_logs_list_idx').on('link_view_logs').columns(['link_id', 'view_time', 'id']).execute();
  await db.schema.createIndex('link_view_logs_seq_idx').on('link_view_logs').columns(['link_id', 'seq', 'viewer_id']).execute();
  await db.schema.createIndex('link_view_logs_viewer_idx').on('link_view_logs').columns(['link_id', 'viewer_id']).execute();

  await db.schema
    .createTable('link_view_durations')
    .addColumn('link_view_log_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text')
    .addColumn('file_name', 'text')
    .addColumn('file_url', 'text')
    .addColumn('page_index', 'text')
    .addColumn('duration', 'text')
    .addColumn('sort_index', 'integer')
    .addColumn('created_at', 'bigint')
    .addColumn('ended_at', 'bigint')
    .addColumn('total', 'bigint')
    .addPrimaryKeyConstraint('link_view_durations_pk', ['link_view_log_id', 'position'])
    .execute();

  let clues = db.schema
    .createTable('clues')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull());
  for (const col of [
    'link_id',
    'link_name',
    'link_view_log_id',
    'form_type',
    'name',
    'title',
    'email',
    'phone',
    'company',
    'website',
    'interested',
    /** Fields of the producer's form beyond the documented ones, as JSON object text. */
    'extra',
  ]) {
    clues = clues.addColumn(col, 'text');
  }
  await clues
    .addColumn('submit_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('clues_link_idx').on('clues').columns(['link_id']).execute();

  let posts = db.schema
    .createTable('posts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'integer')
    .addColumn('owner_name', 'text')
    .addColumn('title', 'text')
    .addColumn('send_way', 'text', (c) => c.notNull())
    .addColumn('send_time', 'bigint', (c) => c.notNull());
  for (const col of [
    'sender_count',
    'success_log_count',
    'view_log_count',
    'view_log_user_count',
    'link_view_log_count',
    'link_view_log_user_count',
    'return_log_count',
    'return_log_user_count',
  ]) {
    posts = posts.addColumn(col, 'integer', (c) => c.notNull().defaultTo(0));
  }
  await posts.addColumn('created_at', 'bigint', (c) => c.notNull()).execute();
  await db.schema.createIndex('posts_app_time_idx').on('posts').columns(['app_id', 'send_time', 'id']).execute();
  await db.schema.createIndex('posts_owner_time_idx').on('posts').columns(['app_id', 'owner_id', 'send_time', 'id']).execute();

  // Per customer × kind × day × key counts: kind 'action' (key = action) feeds the counters,
  // 'site' / 'app_page' / 'tag' the overview lists. Windows sum days, so cost follows days, not records.
  await db.schema
    .createTable('behaviour_rollups')
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('behaviour_rollups_pk', ['customer_id', 'day', 'kind', 'key'])
    .execute();

  // access_site records list their web_page_view records by this id (behaviour list joins).
  await db.schema.alterTable('behaviour_logs').addColumn('web_access_log_id', 'text').execute();
  await db.schema
    .createIndex('behaviour_web_access_idx')
    .on('behaviour_logs')
    .columns(['customer_id', 'web_access_log_id', 'when_at'])
    // Only site visits and page views carry the id: the other records cost this index nothing.
    .where(sql.ref('web_access_log_id'), 'is not', null)
    .execute();
}
