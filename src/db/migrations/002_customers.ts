import type { Kysely } from 'kysely';

/** Customers, their groups, the per-project customer metadata, and behaviour records. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customer_metadata')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('is_ext', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_unique', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('visiable', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sort_index', 'integer', (c) => c.notNull())
    .addColumn('default_value', 'text')
    .addColumn('option_values', 'text')
    .addColumn('readonly', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('customer_metadata_pk', ['app_id', 'name'])
    .execute();

  await db.schema
    .createTable('customer_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('customer_groups_owner_idx').on('customer_groups').columns(['app_id', 'owner_id', 'created_at']).execute();

  let t = db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('group_id', 'text');
  for (const col of [
    'name',
    'headportrait_url',
    'company',
    'title',
    'phone',
    'email',
    'email_lower',
    'fixed_phone',
    'industry',
    'province',
    'city',
    'county',
    'address',
    'lead_source',
    'platform',
    'from_source',
    'utm_medium',
    'utm_campaign',
    'utm_content',
    'buyed_keyword',
    'search_keyword',
    'promoter_id',
    'from_content_title',
    'from_content_link',
    'from_province',
    'from_city',
    'source',
    'deal_user_id',
    'allocation_user_id',
    'merged_customer_id',
    'ext',
  ]) {
    t = t.addColumn(col, 'text');
  }
  for (const col of ['sex', 'age_state', 'intentionality', 'grade', 'create_way', 'get_way']) t = t.addColumn(col, 'integer');
  await t
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_new', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('detail_viewed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customers_owner_list_idx')
    .on('customers')
    .columns(['app_id', 'owner_id', 'status', 'updated_at', 'id'])
    .execute();
  await db.schema.createIndex('customers_app_list_idx').on('customers').columns(['app_id', 'status', 'updated_at', 'id']).execute();
  // Search is an equality on phone or e-mail, then the list order: one index seek each.
  await db.schema.createIndex('customers_phone_idx').on('customers').columns(['app_id', 'phone', 'status', 'updated_at', 'id']).execute();
  await db.schema
    .createIndex('customers_email_idx')
    .on('customers')
    .columns(['app_id', 'email_lower', 'status', 'updated_at', 'id'])
    .execute();
  await db.schema.createIndex('customers_group_idx').on('customers').columns(['group_id']).execute();
  await db.schema.createIndex('customers_deal_user_idx').on('customers').columns(['app_id', 'deal_user_id']).execute();

  await db.schema
    .createTable('behaviour_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('svc_user_id', 'text')
    .addColumn('deal_user_id', 'text')
    .addColumn('customer_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('params', 'text')
    .addColumn('remote_duration', 'bigint')
    .addColumn('description', 'text')
    .addColumn('when_at', 'bigint', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('client_name', 'text')
    .addColumn('client_version', 'text')
    .addColumn('os', 'text')
    .addColumn('os_version', 'text')
    .addColumn('net', 'text')
    .addColumn('ip', 'text')
    .addColumn('location', 'text')
    .addColumn('province', 'text')
    .addColumn('city', 'text')
    .addColumn('user_type', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('behaviour_customer_when_idx').on('behaviour_logs').columns(['customer_id', 'when_at', 'id']).execute();
  await db.schema.createIndex('behaviour_customer_created_idx').on('behaviour_logs').columns(['customer_id', 'created_at']).execute();
}
