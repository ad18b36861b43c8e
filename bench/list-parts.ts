/**
 * Where a customer list page's time goes, in process, on a SQLite dataset kept by
 * `npm run bench -- [--quick] --keep` (issue 7):
 *
 *   node --import tsx bench/list-parts.ts [--size quick|small|default] [--loops 20000]
 *
 * Times, per page of 20: the real service call (statement and response objects), the serialisation
 * of its answer through the route's response schema (fast-json-stringify) and through JSON.stringify,
 * then probes of the statement on a connection of its own: only the ids of the page, the page's rows
 * as arrays, as one json_array text each (how the server reads them), and with the list extras
 * (newCount's behaviour total, whetherMerge's phone and e-mail twins) as the server's statement has
 * them. Loop figures: inside a loaded server the same work costs more (docs/performance.md, item 26).
 */
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import SqliteDatabase from 'better-sqlite3';
import fastJson from 'fast-json-stringify';
import { loadConfig } from '../src/config.ts';
import { Envelope } from '../src/http/envelope.ts';
import { createLogger } from '../src/logger.ts';
import { CustomerListItem } from '../src/modules/customers/schemas.ts';
import { openContext } from '../src/runtime.ts';
import { createServices } from '../src/services.ts';
import { option } from './options.ts';
import { keptDataset } from './server.ts';

const SIZE = option('size', 'quick');
const LOOPS = Number(option('loops', '20000'));
const saved = keptDataset('sqlite', SIZE);
const d = saved.dataset;

async function time(name: string, fn: () => unknown): Promise<void> {
  for (let i = 0; i < Math.ceil(LOOPS / 10); i += 1) await fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < LOOPS; i += 1) await fn();
  console.log(`${name.padEnd(58)} ${(Number(process.hrtime.bigint() - t0) / LOOPS / 1000).toFixed(1)} µs`);
}

const ctx = await openContext(loadConfig({ ...saved.env, LOG_LEVEL: 'silent' }), createLogger('silent'), { migrate: false });
const services = createServices(ctx);
const user = await services.accounts.authenticate(d.token);
const page = { offset: 0, limit: 20 } as Parameters<typeof services.customers.list>[3];
const answer = { status: 1, data: await services.customers.list(d.appId, user.id, 'all', page) };
const serialise = fastJson(Envelope(Type.Array(CustomerListItem)) as Parameters<typeof fastJson>[0]);

const raw = new SqliteDatabase(path.join(saved.env.DATA_DIR ?? '', 'rapport.sqlite'), { readonly: true });
raw.pragma('cache_size = -32768');
const columns = raw
  .prepare('select * from customers limit 1')
  .columns()
  .map((c) => `"${c.name}"`);
const pageSql = 'select * from customers where app_id = ? and status = 1 order by updated_at desc, id desc limit ? + 0';
const extras = `(select coalesce(sum(t.count), 0) from behaviour_totals t where t.customer_id = c.id and t.kind = 'action') as bt,
  exists (select 1 from customers x where x.app_id = c.app_id and x.phone = c.phone and x.owner_id = c.owner_id and x.id != c.id and x.status = 1) as pt,
  exists (select 1 from customers x where x.app_id = c.app_id and x.email_lower = c.email_lower and x.owner_id = c.owner_id and x.id != c.id and x.status = 1) as et`;
const probes: [string, SqliteDatabase.Statement][] = [
  ['probe: the page, ids only', raw.prepare(pageSql.replace('select *', 'select id')).raw(true)],
  ['probe: the page, rows as arrays', raw.prepare(pageSql).raw(true)],
  [
    'probe: the page, each row one json_array text (parsed)',
    raw.prepare(`select json_array(${columns.join(', ')}) from (${pageSql})`).pluck(true),
  ],
  [
    'probe: the same with the extras (the server statement)',
    raw
      .prepare(
        `select json_array(${columns.join(', ')}, bt, pt, et) from (select c.*, ${extras} from (${pageSql}) c order by c.updated_at desc, c.id desc)`,
      )
      .pluck(true),
  ],
];

console.log(
  `customer list page of 20 (${SIZE} dataset, ${columns.length} columns, answer ${serialise(answer).length} bytes), ${LOOPS} loops each:`,
);
await time('service: customers.list (statement, response objects)', () => services.customers.list(d.appId, user.id, 'all', page));
await time('serialise the answer through its response schema', () => serialise(answer));
await time('JSON.stringify of the answer (for comparison)', () => JSON.stringify(answer));
for (const [name, stmt] of probes) {
  await time(name, () => {
    const rows = stmt.all(d.appId, 20) as unknown[];
    if (typeof rows[0] === 'string') for (const r of rows) JSON.parse(r as string);
  });
}
raw.close();
await ctx.database.close();
