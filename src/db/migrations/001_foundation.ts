import type { ColumnDefinitionBuilder, Kysely } from 'kysely';

/** Accounts, OAuth clients and tokens, projects and members, and the event outbox. */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  // Auto-incrementing integer keys: `integer primary key autoincrement` on SQLite, `serial primary key` on PostgreSQL.
  const serial = dialect === 'sqlite' ? 'integer' : 'serial';
  const serialKey = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey());
  await db.schema
    .createTable('users')
    .addColumn('id', serial, serialKey)
    .addColumn('phone_num', 'text', (c) => c.unique())
    .addColumn('email', 'text')
    .addColumn('email_lower', 'text', (c) => c.unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('email_status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('phone_num_status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('photo_uri', 'text')
    .addColumn('openid', 'text')
    .addColumn('unionid', 'text')
    .addColumn('sex', 'integer')
    .addColumn('city', 'text')
    .addColumn('province', 'text')
    .addColumn('company', 'text')
    .addColumn('position', 'text')
    .addColumn('industry', 'text')
    .addColumn('cc_num', 'integer', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('channel', 'integer')
    .addColumn('weixin_nickname', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint')
    .execute();

  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  for (const table of ['access_tokens', 'refresh_tokens']) {
    await db.schema
      .createTable(table)
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_expires_idx`).on(table).column('expires_at').execute();
  }

  await db.schema
    .createTable('verification_codes')
    .addColumn('target', 'text', (c) => c.primaryKey())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('login_failures')
    .addColumn('id', serial, serialKey)
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_failures_key_at_idx').on('login_failures').columns(['key', 'at']).execute();

  await db.schema
    .createTable('apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('creator_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text')
    .addColumn('description', 'text')
    .addColumn('icon_url', 'text')
    .addColumn('icon_width', 'integer')
    .addColumn('icon_height', 'integer')
    .addColumn('ios_bundle_id', 'text')
    .addColumn('android_package_name', 'text')
    .addColumn('conference_id', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('redirect_uri', 'text')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('edit_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('apps_creator_idx').on('apps').column('creator_id').execute();

  await db.schema
    .createTable('members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('conference_id', 'text')
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('post_roles', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('edit_time', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('members_app_user_uq', ['app_id', 'user_id'])
    .execute();
  await db.schema.createIndex('members_user_idx').on('members').column('user_id').execute();
  await db.schema.createIndex('members_app_order_idx').on('members').columns(['app_id', 'create_time', 'id']).execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('domain_type', 'text', (c) => c.notNull())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_app_idx').on('outbox').columns(['app_id', 'created_at']).execute();
}
