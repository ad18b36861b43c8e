/**
 * The customer list's query plans at scale (docs/customers.md, "Query plans"): a project of 20,000
 * customers and 150,000 behaviour records on a fresh database of each dialect, after ANALYZE, then
 * the plan of each order's page (from a position and after an anchor, all and one owner), its
 * total, and the activity filter. `npx tsx test/tools/list-plans.ts [sqlite|postgres]`.
 */
import { sql } from 'kysely';
import { createDatabase, migrateToLatest } from '../../src/db/index.ts';
import { customerListReads, filtered, livePage } from '../../src/modules/customers/list.repository.ts';
import { customerActivityReads } from '../../src/modules/behaviour/activity.repository.ts';
import { customerBehaviourTotal } from '../../src/modules/behaviour/repository.ts';
import { risenCustomers } from '../../src/modules/customers/scores.repository.ts';
import { freshDatabase } from '../helpers/database.ts';

const dialect = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const fresh = await freshDatabase(dialect);
const handle = createDatabase({ databaseUrl: fresh.env.DATABASE_URL ?? '', dataDir: fresh.env.DATA_DIR ?? '' });
const db = handle.db;
await migrateToLatest(db, dialect);
const APP = 'plan-app';
const now = Date.now();
// Rows only: the projects' users and the rest do not matter to the plans.
if (dialect === 'sqlite') await sql`pragma foreign_keys = off`.execute(db);
else for (const t of ['customers', 'behaviour_logs']) await sql.raw(`alter table ${t} disable trigger all`).execute(db);
const actions = ['access_site', 'link_view_log', 'file_view_duration', 'send_message', 'mail_open'];
for (let chunk = 0; chunk < 20; chunk++) {
  const rows = Array.from({ length: 1000 }, (_, j) => {
    const i = chunk * 1000 + j;
    return {
      id: `c-${String(i).padStart(6, '0')}`,
      app_id: i % 10 === 0 ? 'other-app' : APP,
      owner_id: 1 + (i % 20),
      name: `Name ${(i * 7919) % 20000}`,
      status: 1,
      is_new: 0,
      created_at: now - i * 60_000,
      updated_at: now - ((i * 31) % 20000) * 60_000,
      last_activity_at: i % 3 === 0 ? 0 : now - ((i * 17) % 20000) * 60_000,
      // A quarter never scored; the rest with scores and rises spread.
      score_key: i % 4 === 0 ? 0 : 1400 + ((i * 7) % 1000) / 10,
      score_rise_at: i % 4 === 0 ? 0 : now - ((i * 29) % 20000) * 60_000,
    };
  });
  await db.insertInto('customers').values(rows).execute();
  const records = Array.from({ length: 7500 }, (_, j) => {
    const n = chunk * 7500 + j;
    const c = (n * 13) % 20000;
    return {
      id: `b-${n}`,
      app_id: c % 10 === 0 ? 'other-app' : APP,
      customer_id: `c-${String(c).padStart(6, '0')}`,
      action: actions[n % actions.length] as string,
      when_at: now - (n % 90) * 86_400_000,
      user_type: 0,
      created_at: now,
    };
  });
  for (let k = 0; k < records.length; k += 500)
    await db
      .insertInto('behaviour_logs')
      .values(records.slice(k, k + 500))
      .execute();
}
await sql.raw(dialect === 'sqlite' ? 'analyze' : 'analyze').execute(db);

const explain = async (label: string, q: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
  const c = q.compile();
  const prefix = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
  const rows = (await sql.raw(prefix + inline(c.sql, c.parameters)).execute(db)).rows as Record<string, unknown>[];
  const plan = rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join(' | ');
  console.log(`${label}\n    ${plan}`);
};
function inline(text: string, params: readonly unknown[]): string {
  let i = 0;
  const lit = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);
  return dialect === 'sqlite'
    ? text.replace(/\?/g, () => lit(params[i++]))
    : text.replace(/\$(\d+)/g, (_, n) => lit(params[Number(n) - 1]));
}

void customerListReads;
const base = (owner: number | null, key?: string) => {
  let q = db.selectFrom('customers').selectAll().where('app_id', '=', APP);
  // As the list's statements: the score's order keeps the owner out of SQLite's index choice.
  if (owner !== null) q = key === 'score' ? q.where(handle.features.projectIs('owner_id', owner)) : q.where('owner_id', '=', owner);
  return q;
};
for (const key of ['updated', 'created', 'name', 'last_activity', 'score'] as const) {
  for (const dir of ['desc', 'asc'] as const) {
    for (const owner of [null, 3]) {
      await explain(`${key} ${dir} ${owner === null ? 'all' : 'owner'}`, livePage(base(owner, key), { key, dir }, 0, 20));
    }
  }
}
const reads = {
  customersWith: (eb: never, c: { appId: string; id: string }, a: readonly string[], p: { since: number | null; until: number | null }) =>
    customerActivityReads.customersWith(eb, c, a, p),
  anyIn: (eb: never, c: { appId: string; id: string }, p: { since: number | null; until: number | null }) =>
    customerActivityReads.anyIn(eb, c, ['create', 'customer_merged'], p),
};
const week = now - 7 * 86_400_000;
for (const [label, activity] of [
  ['activity site_visit 7d', { actions: ['access_site'], since: week, until: null }],
  ['activity form_fill (three actions) 7d', { actions: ['link_view_clue', 'submit_form', 'app_submit_form'], since: week, until: null }],
  ['activity any 7d', { actions: null, since: week, until: null }],
  ['activity any since..until', { actions: null, since: week, until: now - 86_400_000 }],
] as const) {
  const filter = { activity: { ...activity, actions: activity.actions as readonly string[] | null, reads: reads as never } };
  await explain(
    `${label}, by last change`,
    livePage(filtered(db, { appId: APP, ownerId: null }, filter), { key: 'updated', dir: 'desc' }, 0, 20),
  );
  await explain(`${label}, one owner`, livePage(filtered(db, { appId: APP, ownerId: 3 }, filter), { key: 'updated', dir: 'desc' }, 0, 20));
}
await explain(
  'total, all',
  db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('app_id', '=', APP)
    .where('status', '=', 1),
);
await explain(
  'total, owner',
  db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('app_id', '=', APP)
    .where('owner_id', '=', 3)
    .where('status', '=', 1),
);
// The hot leads (docs/scoring.md): a page of the risen customers, each joined to its state by key.
for (const owner of [null, 3]) {
  const page = risenCustomers(db, { appId: APP, ownerId: owner }, handle.features).offset(0).limit(20);
  await explain(
    `hot leads, ${owner === null ? 'all' : 'owner'}`,
    db
      .selectFrom(page.as('c'))
      .leftJoin('customer_scores as s', (j) => j.onRef('s.app_id', '=', 'c.app_id').onRef('s.customer_id', '=', 'c.id'))
      .selectAll('c')
      .select(['s.value', 's.reasons'])
      .orderBy('c.score_rise_at', 'desc')
      .orderBy('c.id', 'desc'),
  );
}
void customerBehaviourTotal;
await handle.close();
await fresh.drop();
