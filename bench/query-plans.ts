/** Prints the query plans of the customer and event-feed hot paths on the configured database: `node --import tsx bench/query-plans.ts`. */
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openContext } from '../src/runtime.ts';

const ctx = await openContext(loadConfig(), createLogger('warn'));
const db = ctx.database.db;
const pg = ctx.database.features.name === 'postgres';
const explain = pg ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
const queries: Record<string, string> = {
  detail: `select * from customers where id = 'c123'`,
  search_phone: `select * from customers where app_id = 'a' and phone = '13800000123' and status = 1 order by updated_at desc, id desc limit 20`,
  search_email: `select * from customers where app_id = 'a' and email_lower = 'u123@x.com' and status = 1 order by updated_at desc, id desc limit 20`,
  list_owner: `select * from customers where app_id = 'a' and owner_id = 1 and status = 1 order by updated_at desc, id desc limit 20 offset 0`,
  list_all: `select * from customers where app_id = 'a' and status = 1 order by updated_at desc, id desc limit 20 offset 0`,
  new_count: `select sum(count) from behaviour_totals where customer_id = 'c' and kind = 'action'`,
  // Events out (migration 010: the position indexes hold sequenced rows only, the pending index pending rows only).
  outbox_pending: `select id, created_at from outbox where seq is null order by created_at, id limit 1000`,
  outbox_last_position: `select max(seq) from outbox where seq is not null`,
  feed_all: `select * from outbox where seq > 10 order by seq limit 500`,
  feed_project: `select * from outbox where seq > 10 and app_id = 'a' order by seq limit 500`,
  outbox_prune: `select id from outbox where seq is not null and seq <= 100 and created_at < 5 order by seq limit 500`,
};
// Realistic statistics: 20,000 customers over 20 owners, 5 behaviour records each for 100 of them.
const now = Date.now();
const user = await db
  .insertInto('users')
  .values({ password_hash: 'x', email_status: 0, phone_num_status: 0, cc_num: 12345678, status: 1, created_at: now, updated_at: now })
  .returning('id')
  .executeTakeFirstOrThrow();
await db
  .insertInto('apps')
  .values({ id: 'a', creator_id: user.id, name: 'p', secret: 's', status: 0, create_time: now, edit_time: now })
  .execute();
for (let i = 0; i < 20_000; i += 500) {
  const rows = Array.from({ length: 500 }, (_, j) => {
    const n = i + j;
    return {
      id: `c${n}`,
      app_id: 'a',
      owner_id: n % 20,
      phone: `138${String(n).padStart(8, '0')}`,
      email: `u${n}@x.com`,
      email_lower: `u${n}@x.com`,
      status: 1,
      is_new: 0,
      created_at: now - n * 1000,
      updated_at: now - n * 1000,
    };
  });
  await db.insertInto('customers').values(rows).execute();
}
// 20,000 events, the last 1,000 not yet sequenced.
for (let i = 0; i < 20_000; i += 500) {
  const rows = Array.from({ length: 500 }, (_, j) => {
    const n = i + j;
    return {
      id: `e${String(n).padStart(6, '0')}`,
      app_id: n % 3 === 0 ? 'a' : 'b',
      event_type: 'create',
      domain_type: 'BehaviourLog',
      domain_id: `b${n}`,
      body: '{}',
      created_at: now + n,
      seq: n < 19_000 ? n + 1 : null,
    };
  });
  await db.insertInto('outbox').values(rows).execute();
}
await sql.raw('ANALYZE').execute(db);
for (const [name, q] of Object.entries(queries)) {
  const r = await sql.raw(`${explain} ${q}`).execute(db);
  console.log(`-- ${name}`);
  for (const row of r.rows as Record<string, unknown>[]) console.log('   ', row['QUERY PLAN'] ?? row.detail);
}
await ctx.database.close();
