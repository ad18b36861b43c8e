/**
 * `npm run release:fixture [-- sqlite|postgres]`: when a release is made, writes what a database
 * created by it looks like to test/fixtures/release/<dialect>.sql (both dialects by default;
 * PostgreSQL at RAPPORT_TEST_PG_URL, dumped with pg_dump): an empty database migrated by the
 * release's migrations, a few rows in every table, dumped. test/db/schema-upgrade.test.ts loads the
 * dump and migrates it to head, so every later migration is tried on a database with rows in it.
 * Run it only at a release, from the release's own tree, and commit the dumps (docs/migrations.md).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { DialectName } from '../../src/db/dialect.ts';
import type { Database } from '../../src/db/schema.ts';
import { RELEASE_FIXTURE, dumpDatabase, releaseFixtureFile } from '../helpers/release.ts';
import { migratedDatabase } from '../helpers/schema.ts';

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const T = 1_700_000_000_000;
const UNTIL_2100 = 4_102_444_800_000;
const F = RELEASE_FIXTURE;

/** A few rows in every table, related as the server relates them; texts with quotes, newlines and non-ASCII. */
async function fill(db: Kysely<Database>): Promise<void> {
  const user = (phone: string, name: string) => ({
    phone_num: phone,
    email: null,
    email_lower: null,
    password_hash: 'scrypt$release-fixture$not-a-real-hash',
    name,
    email_status: 0,
    phone_num_status: 1,
    cc_num: 1,
    status: 1,
    created_at: T,
    updated_at: T,
  });
  await db
    .insertInto('users')
    .values([
      user(F.masterPhone, 'Master'),
      { ...user('13900000002', 'Sales'), email: 'Sales@Example.com', email_lower: 'sales@example.com' },
    ])
    .execute();
  await db
    .insertInto('user_presence')
    .values({ user_id: 1, last_seen_at: T + 60_000 })
    .execute();
  await db
    .insertInto('oauth_clients')
    .values({
      id: 'client-release-fixture',
      name: 'fixture client',
      secret_hash: sha256('fixture-secret'),
      created_at: T,
      revoked_at: null,
    })
    .execute();
  const token = (raw: string, userId: number) => ({
    token_hash: sha256(raw),
    user_id: userId,
    client_id: 'client-release-fixture',
    expires_at: UNTIL_2100,
    created_at: T,
  });
  await db
    .insertInto('access_tokens')
    .values([token(F.masterToken, 1), token('release-fixture-sales-token', 2)])
    .execute();
  await db.insertInto('refresh_tokens').values(token('release-fixture-refresh-token', 1)).execute();
  await db
    .insertInto('verification_codes')
    .values({
      target: 'phone:13900000003',
      purpose: 'register',
      code_hash: sha256('phone:13900000003:123456'),
      expires_at: T + 600_000,
      created_at: T,
      attempts: 1,
    })
    .execute();
  await db.insertInto('login_failures').values({ key: 'ip:127.0.0.1', at: T }).execute();
  await db
    .insertInto('apps')
    .values({
      id: F.appId,
      creator_id: 1,
      name: 'Release fixture',
      type: 'sales',
      description: 'Two lines\nof description',
      icon_url: null,
      icon_width: null,
      icon_height: null,
      ios_bundle_id: null,
      android_package_name: null,
      conference_id: null,
      secret: 'app-secret',
      status: 0,
      redirect_uri: null,
      create_time: T,
      edit_time: T,
    })
    .execute();
  await db
    .insertInto('members')
    .values([
      {
        id: 'mem-1',
        app_id: F.appId,
        user_id: 1,
        conference_id: null,
        status: 0,
        role: 'Master',
        post_roles: 'MarketPost,SalesPost',
        create_time: T,
        edit_time: T,
      },
      {
        id: 'mem-2',
        app_id: F.appId,
        user_id: 2,
        conference_id: null,
        status: 0,
        role: 'Sales',
        post_roles: 'SalesPost',
        create_time: T + 1,
        edit_time: T + 1,
      },
    ])
    .execute();
  await db
    .insertInto('customer_metadata')
    .values({
      app_id: F.appId,
      name: 'favourite_colour',
      type: 'select',
      title: 'Favourite colour',
      is_ext: 1,
      is_unique: 0,
      required: 0,
      visiable: 1,
      sort_index: 1,
      default_value: null,
      option_values: '[{"value":"r","label":"Red"}]',
      readonly: 0,
    })
    .execute();
  await db.insertInto('customer_groups').values({ id: 'grp-1', app_id: F.appId, owner_id: 2, name: 'Hot leads', created_at: T }).execute();
  const customer = {
    app_id: F.appId,
    owner_id: 2,
    group_id: null,
    name: null,
    headportrait_url: null,
    company: null,
    title: null,
    phone: null,
    email: null,
    email_lower: null,
    fixed_phone: null,
    industry: null,
    province: null,
    city: null,
    county: null,
    address: null,
    lead_source: null,
    platform: null,
    from_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_content: null,
    buyed_keyword: null,
    search_keyword: null,
    promoter_id: null,
    from_content_title: null,
    from_content_link: null,
    from_province: null,
    from_city: null,
    source: null,
    deal_user_id: null,
    allocation_user_id: null,
    merged_customer_id: null,
    ext: null,
    sex: null,
    age_state: null,
    intentionality: null,
    grade: null,
    create_way: null,
    get_way: null,
    status: 1,
    is_new: 1,
    detail_viewed_at: null,
    created_at: T,
    updated_at: T,
  };
  await db
    .insertInto('customers')
    .values([
      {
        ...customer,
        id: F.customerId,
        group_id: 'grp-1',
        name: F.customerName,
        company: 'Acme; DROP TABLE customers; --',
        phone: '13800000001',
        email: 'Zoe@Example.com',
        email_lower: 'zoe@example.com',
        address: 'Line one\nLine two',
        ext: '{"favourite_colour":"r"}',
        sex: 2,
        grade: 3,
        is_new: 0,
        detail_viewed_at: T + 2000,
        seen_behaviour_count: 2,
        updated_at: T + 2000,
      },
      { ...customer, id: 'cus-release-fixture-2', name: 'Deleted customer', status: 0, seen_behaviour_count: 0 },
    ])
    .execute();
  const behaviour = {
    app_id: F.appId,
    customer_id: F.customerId,
    svc_user_id: '2',
    deal_user_id: null,
    customer_name: F.customerName,
    params: null,
    remote_duration: null,
    description: null,
    content: null,
    client_name: null,
    client_version: null,
    os: null,
    os_version: null,
    net: null,
    ip: '127.0.0.1',
    location: null,
    province: null,
    city: null,
    user_type: 1,
    web_access_log_id: null,
  };
  await db
    .insertInto('behaviour_logs')
    .values([
      { ...behaviour, id: 'beh-1', action: 'access_site', when_at: T + 1000, created_at: T + 1000, web_access_log_id: 'wal-1' },
      {
        ...behaviour,
        id: 'beh-2',
        action: 'web_page_view',
        when_at: T + 1500,
        created_at: T + 1500,
        web_access_log_id: 'wal-1',
        content: '{"url":"https://example.com/a?b=1&c=\'2\'"}',
      },
      { ...behaviour, id: 'beh-3', action: 'send_message', when_at: T + 3000, created_at: T + 3000, remote_duration: 2 ** 53 - 1 },
    ])
    .execute();
  await db
    .insertInto('behaviour_rollups')
    .values([
      { app_id: F.appId, customer_id: F.customerId, kind: 'action', day: '2023-11-14', key: 'access_site', count: 1 },
      { app_id: F.appId, customer_id: F.customerId, kind: 'action', day: '2023-11-14', key: 'web_page_view', count: 1 },
      { app_id: F.appId, customer_id: F.customerId, kind: 'action', day: '2023-11-14', key: 'send_message', count: 1 },
      { app_id: F.appId, customer_id: F.customerId, kind: 'site', day: '2023-11-14', key: 'example.com', count: 1 },
    ])
    .execute();
  await db
    .insertInto('behaviour_totals')
    .values([
      { app_id: F.appId, customer_id: F.customerId, kind: 'action', key: 'access_site', count: 1 },
      { app_id: F.appId, customer_id: F.customerId, kind: 'action', key: 'web_page_view', count: 1 },
      { app_id: F.appId, customer_id: F.customerId, kind: 'action', key: 'send_message', count: 1 },
      { app_id: F.appId, customer_id: F.customerId, kind: 'site', key: 'example.com', count: 1 },
    ])
    .execute();
  await db
    .insertInto('calls')
    .values({
      id: 'call-1',
      app_id: F.appId,
      audio_url: 'https://example.com/a.mp3',
      m4a_audio_url: null,
      duration: 42,
      call_status: 1,
      audio_status: 1,
      call_time: T + 4000,
      end_time: T + 46_000,
      async_task_id: null,
      from_user_type: 0,
      from_user_id: '2',
      to_user_type: 1,
      to_user_id: F.customerId,
      photo_uri: null,
      name: F.customerName,
      phone_num: '13800000001',
      customer_id: F.customerId,
      created_at: T + 4000,
    })
    .execute();
  const link = Object.fromEntries(
    ['name', 'short_name', 'creator_name', 'conference_id', 'remark', 'file1', 'file2', 'file3', 'file4', 'form_type', 'website']
      .concat([
        'clue_id',
        'src',
        'customer_id',
        'official_account_id',
        'utm_source',
        'utm_medium',
        'utm_campaign',
        'utm_content',
        'utm_term',
      ])
      .map((c) => [c, null]),
  );
  await db
    .insertInto('links')
    .values({
      ...link,
      id: 'link-1',
      app_id: F.appId,
      creator_id: 2,
      name: 'Brochure',
      tags: '["pricing","demo"]',
      share_token: 'share-release-fixture',
      form_position: null,
      type: 1,
      form_pop_time: null,
      is_directional: 0,
      weixin_grant_type: null,
      read_seq: 1,
      created_at: T,
      updated_at: T,
    })
    .execute();
  const view = Object.fromEntries(
    ['viewer_name', 'ip', 'location', 'system', 'client', 'clue_id', 'leave_time', 'spread_id']
      .concat(['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'])
      .map((c) => [c, null]),
  );
  await db
    .insertInto('link_view_logs')
    .values([
      {
        ...view,
        id: 'view-1',
        app_id: F.appId,
        link_id: 'link-1',
        viewer_id: F.customerId,
        view_time: T + 5000,
        total_duration: 12_000,
        total_page: 3,
        created_at: T + 5000,
      },
      {
        ...view,
        id: 'view-2',
        app_id: F.appId,
        link_id: 'link-1',
        viewer_id: null,
        view_time: T + 6000,
        total_duration: null,
        total_page: null,
        created_at: T + 6000,
      },
    ])
    .execute();
  await db
    .insertInto('link_view_durations')
    .values({
      app_id: F.appId,
      link_view_log_id: 'view-1',
      position: 0,
      id: 'dur-1',
      file_id: 'file-1',
      file_name: 'brochure.pdf',
      file_url: null,
      page_index: '1',
      duration: '4000',
      sort_index: 0,
      created_at: T + 5000,
      ended_at: T + 9000,
      total: 4000,
    })
    .execute();
  await db
    .insertInto('clues')
    .values({
      id: 'clue-1',
      app_id: F.appId,
      link_id: 'link-1',
      link_name: 'Brochure',
      link_view_log_id: 'view-1',
      form_type: 'contact',
      name: F.customerName,
      title: null,
      email: 'zoe@example.com',
      phone: '13800000001',
      company: null,
      website: null,
      interested: 'pricing',
      extra: '{"budget":"≥ 10k"}',
      submit_at: T + 7000,
      created_at: T + 7000,
    })
    .execute();
  await db
    .insertInto('posts')
    .values({
      id: 'post-1',
      app_id: F.appId,
      owner_id: 2,
      owner_name: 'Sales',
      title: 'November news',
      send_way: 'email',
      send_time: T + 8000,
      sender_count: 10,
      success_log_count: 9,
      view_log_count: 4,
      view_log_user_count: 3,
      link_view_log_count: 2,
      link_view_log_user_count: 1,
      return_log_count: 0,
      return_log_user_count: 0,
      created_at: T + 8000,
    })
    .execute();
  const event = { app_id: F.appId, event_type: 'customer.created', domain_type: 'customer', domain_id: F.customerId };
  await db
    .insertInto('outbox')
    .values([
      { ...event, id: 'evt-1', body: '{"id":"cus-release-fixture-1"}', created_at: T, seq: 1 },
      {
        ...event,
        id: 'evt-2',
        event_type: 'customer.updated',
        body: '{"id":"cus-release-fixture-1","name":"x"}',
        created_at: T + 2000,
        seq: null,
      },
    ])
    .execute();
  await db.insertInto('event_cursors').values({ name: 'nats', position: 1 }).execute();
  await db
    .insertInto('webhooks')
    .values({
      id: 'hook-1',
      app_id: F.appId,
      url: 'http://127.0.0.1:9/hook',
      secret: 'hook-secret',
      domain_types: 'customer',
      status: 'active',
      disabled_reason: null,
      cursor: 1,
      created_by: 1,
      created_at: T,
    })
    .execute();
  await db
    .insertInto('webhook_deliveries')
    .values({
      app_id: F.appId,
      webhook_id: 'hook-1',
      event_ids: '["evt-1"]',
      first_seq: 1,
      last_seq: 1,
      status: 'delivered',
      attempts: 1,
      next_attempt_at: T,
      last_status_code: 204,
      last_error: null,
      created_at: T,
      delivered_at: T + 100,
    })
    .execute();
}

const args = process.argv.slice(2);
const dialects: DialectName[] = args.length > 0 ? (args as DialectName[]) : ['sqlite', 'postgres'];
for (const dialect of dialects) {
  if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error(`unknown dialect ${String(dialect)}`);
  const database = await migratedDatabase(dialect);
  try {
    await fill(database.handle.db);
    const header = [
      `-- A ${dialect} database created by the release whose migrations are: ${database.applied.join(', ')}.`,
      '-- Written by `npm run release:fixture`; loaded by test/db/schema-upgrade.test.ts. Do not edit by hand.',
      '',
    ].join('\n');
    const file = releaseFixtureFile(dialect);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, header + dumpDatabase(database.fresh, dialect));
    process.stdout.write(`${file}\n`);
  } finally {
    await database.close();
  }
}
