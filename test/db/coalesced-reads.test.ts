// lanes: sqlite postgres
/**
 * Concurrent reads (ADR 0004): on PostgreSQL the reads of one prepared statement that wait together
 * go out as one statement (src/db/pg-reader.ts). Whatever goes together, each request must get
 * exactly the answer it gets alone: its own rows, in its own order, its own error.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { type CoalescedForm, coalescedForm, coalescedStatement, poolReader } from '../../src/db/pg-reader.ts';
import { postgresFeatures } from '../../src/db/postgres.ts';
import { compileTemplate, preparedQuery } from '../../src/db/prepared.ts';
import type { Database } from '../../src/db/schema.ts';
import { TEST_DIALECT } from '../helpers/database.ts';
import { useTestServer } from '../helpers/harness.ts';
import { type HistoryProject, DAY, ago, customerEvent, event, historyProject, ingest } from '../helpers/histories.ts';

/** A PostgreSQL query builder with no connection: statements are only compiled. */
const compileOnly = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const pageOfCustomers = preparedQuery('testForm', ({ db }, appId: string, status: number, limit: number, offset: number) =>
  db
    .selectFrom('customers')
    .select(['id', 'name'])
    .where('app_id', '=', appId)
    .where('status', '=', status)
    .where('name', '!=', "it's")
    .orderBy('id')
    .limit(limit)
    .offset(offset),
);

describe('the coalesced statement', () => {
  it('knows the arguments a limit or an offset takes', () => {
    expect(compileTemplate(compileOnly, postgresFeatures, pageOfCustomers).pageArguments).toEqual([2, 3]);
  });

  it('binds arguments as arrays, writes pages in, keeps constants bound, and refuses array parameters', () => {
    const t = compileTemplate(compileOnly, postgresFeatures, pageOfCustomers);
    const form = coalescedForm(t, ['text', 'integer', 'text', 'bigint', 'bigint']);
    expect(form).toEqual({
      inlined: [2, 3],
      arrays: [
        { argument: 0, type: 'text' },
        { argument: 1, type: 'integer' },
      ],
    });
    const statement = coalescedStatement(compileOnly, postgresFeatures, pageOfCustomers, form as CoalescedForm, ['id', 'name'], [20, 0]);
    expect(statement.text).toBe(
      'select rapport_args.i, (select json_agg(s.r) from (select json_build_array("r"."id", "r"."name") as r from (' +
        'select "id", "name" from "customers" where "app_id" = "rapport_args"."a0" and "status" = "rapport_args"."a1" and "name" != $1 ' +
        'order by "id" limit 20 offset 0) as r) as s) as rs from unnest($2::text[], $3::integer[]) with ordinality as rapport_args("a0", "a1", i)',
    );
    expect(statement.slots).toEqual([-1, 0, 1]);
    expect(statement.constants).toEqual(["it's", undefined, undefined]);
    expect(coalescedForm(t, ['text[]', 'integer', 'text', 'bigint', 'bigint'])).toBeNull();
  });
});

const t = useTestServer();
const idOf = (i: number) => (i % 5 === 0 ? `cust.${i}:x` : `cust-${i}`);
const nameOf = (i: number) => (i % 4 === 0 ? `O'Brien "${i % 3}" 中文` : `Name ${i}`);
let p: HistoryProject;
const CUSTOMERS = 24;

beforeAll(async () => {
  p = await historyProject(t.server);
  const batch: unknown[] = [];
  for (let i = 0; i < CUSTOMERS; i += 1) {
    // Quotes and non-ASCII in names, searched for: they travel inside the argument arrays.
    const id = idOf(i);
    batch.push(customerEvent(id, { name: nameOf(i), phone: `1380000${String(i % 7).padStart(4, '0')}`, svcUserId: p.sales.id }));
    for (let k = 0; k < i % 6; k += 1) {
      batch.push(event('BehaviourLog', `b-${i}-${k}`, { customerId: id, action: 'send_message', when: ago((k % 3) * DAY + k * 1000) }));
    }
  }
  const res = await ingest(t.server, p, batch);
  expect(res.json(), res.body).toMatchObject({ status: 1 });
});

/** Requests of several hot reads, with different arguments, page sizes and offsets, and some that fail. */
function requests(): string[] {
  const urls: string[] = [];
  for (let i = 0; i < CUSTOMERS + 2; i += 1) {
    const id = encodeURIComponent(i < CUSTOMERS ? idOf(i) : `nobody-${i}`);
    urls.push(`/api/v1.7/customer/${id}/detail`);
    urls.push(`/api/v1.7/customer/${id}/overview`);
    urls.push(`/api/v1.7/app/${p.appId}/member/customer/${id}/behaviour?count=${1 + (i % 3)}&start_index=${i % 2}`);
  }
  for (const [start, count] of [
    [0, 5],
    [0, 5],
    [3, 5],
    [0, 20],
    [0, 2000],
  ])
    urls.push(`/api/v1.7/app/${p.appId}/member/all/customers?start_index=${start}&count=${count}`);
  for (let i = 0; i < 7; i += 1) urls.push(`/api/v1.7/app/${p.appId}/customer/appSearch?condition=1380000${String(i).padStart(4, '0')}`);
  for (const name of [nameOf(0), nameOf(4), nameOf(8), 'Name 1', 'nobody'])
    urls.push(`/api/v1.7/app/${p.appId}/customer/appSearch?condition=${encodeURIComponent(name)}`);
  return urls;
}

describe('concurrent reads', () => {
  it('answer each request as it is answered alone', async () => {
    const urls = requests();
    const get = (url: string) => t.server.api.get(url, { token: p.admin.token });
    const alone: { status: number; body: string }[] = [];
    for (const url of urls) {
      const res = await get(url);
      alone.push({ status: res.statusCode, body: res.body });
    }
    expect(alone.filter((a) => a.status === 200).length).toBeGreaterThan(CUSTOMERS * 3);
    expect(alone.some((a) => a.status !== 200 || JSON.parse(a.body).status !== 1)).toBe(true);
    // Every statement the server's pool sends (on PostgreSQL), to see that reads did go together.
    const sent: string[] = [];
    const query = pg.Pool.prototype.query;
    pg.Pool.prototype.query = function (this: pg.Pool, ...a: unknown[]) {
      const q = a[0] as string | { text: string };
      sent.push(typeof q === 'string' ? q : q.text);
      return (query as (...x: unknown[]) => unknown).apply(this, a);
    } as typeof query;
    try {
      for (let round = 0; round < 3; round += 1) {
        const together = await Promise.all(urls.map(get));
        expect(together.map((r) => ({ status: r.statusCode, body: r.body }))).toEqual(alone);
      }
    } finally {
      pg.Pool.prototype.query = query;
    }
    if (TEST_DIALECT === 'postgres') {
      expect(sent.filter((s) => s.startsWith('select rapport_args.i')).length).toBeGreaterThan(3);
      expect(sent.length).toBeLessThan(urls.length * 3);
    }
  });
});

const byCustomer = preparedQuery('testCoalescedBehaviour', ({ db }, appId: string, customerId: string, since: number, limit: number) =>
  db
    .selectFrom('behaviour_logs')
    .select(['id', 'customer_id', 'action', 'when_at'])
    .where('app_id', '=', appId)
    .where('customer_id', '=', customerId)
    .where('when_at', '>=', since)
    .orderBy('when_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit),
);

describe.runIf(TEST_DIALECT === 'postgres')('coalesced PostgreSQL reads', () => {
  let pool: pg.Pool;
  const sent: string[] = [];

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: t.server.ctx.config.databaseUrl as string, max: 4 });
    // An idle connection ended by the server (the test database dropped at the end) is no failure.
    pool.on('error', () => {});
    const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
    pool.query = ((...a: unknown[]) => {
      const q = a[0] as string | { text: string };
      sent.push(typeof q === 'string' ? q : q.text);
      return query(...a);
    }) as typeof pool.query;
  });
  afterAll(async () => {
    await pool.end();
  });

  it('send reads waiting together as one statement, each getting its own rows, order and errors', async () => {
    const reader = poolReader(pool, t.server.ctx.database.db, t.server.ctx.database.features);
    const since = Date.now() - 10 * DAY;
    // The first execution learns the columns and the parameters' types.
    await reader.all(byCustomer, p.appId, idOf(5), since, 10);
    const cases = Array.from({ length: 40 }, (_, k) => {
      const i = k % (CUSTOMERS + 2);
      // Page sizes: a few equal ones go together, 5000 (past what is written in) runs alone; one bad argument.
      const limit = k % 9 === 0 ? 5000 : 1 + (k % 3);
      const customer = i < CUSTOMERS ? idOf(i) : `nobody-${i}`;
      const sinceArg = k === 17 ? ('not a number' as unknown as number) : since;
      return { customer, since: sinceArg, limit };
    });
    const expected = await Promise.all(
      cases.map(async (c) =>
        c.since === since
          ? await t.server.ctx.database.db
              .selectFrom('behaviour_logs')
              .select(['id', 'customer_id', 'action', 'when_at'])
              .where('app_id', '=', p.appId)
              .where('customer_id', '=', c.customer)
              .where('when_at', '>=', since)
              .orderBy('when_at', 'desc')
              .orderBy('id', 'desc')
              .limit(c.limit)
              .execute()
          : 'error',
      ),
    );
    expect(expected.filter((e) => Array.isArray(e) && e.length > 1).length).toBeGreaterThan(5);
    sent.length = 0;
    const got = await Promise.all(
      cases.map((c) =>
        reader.all(byCustomer, p.appId, c.customer, c.since, c.limit).then(
          (rows) => rows,
          () => 'error',
        ),
      ),
    );
    expect(got).toEqual(expected);
    const coalesced = sent.filter((s) => s.startsWith('select rapport_args.i'));
    expect(coalesced.length).toBeGreaterThan(0);
    // Fewer statements than reads, though the batch holding the bad argument ran again in halves.
    expect(sent.length).toBeLessThan(cases.length);
  });

  it('prepare at most 32 coalesced texts per statement, and send an array argument alone', async () => {
    const reader = poolReader(pool, t.server.ctx.database.db, t.server.ctx.database.features);
    const since = Date.now() - 10 * DAY;
    await reader.all(byCustomer, p.appId, idOf(5), since, 10);
    sent.length = 0;
    // 200 page sizes, two reads each, all at once: 400 reads waiting while batches are out.
    const reads = Array.from({ length: 400 }, (_, k) => ({ customer: idOf(k % CUSTOMERS), limit: 1 + (k % 200) }));
    const got = await Promise.all(reads.map((r) => reader.all(byCustomer, p.appId, r.customer, since, r.limit)));
    got.forEach((rows, k) => expect(rows.length).toBeLessThanOrEqual((reads[k] as { limit: number }).limit));
    expect(new Set(sent.filter((s) => s.startsWith('select rapport_args.i'))).size).toBeLessThanOrEqual(32);
    // An array where the statement takes one text: alone it matches nothing (node-postgres sends the
    // array's text); inside an array parameter it would have become two values.
    const arrays = await Promise.all([
      reader.all(byCustomer, p.appId, [idOf(1), idOf(2)] as unknown as string, since, 5),
      reader.all(byCustomer, p.appId, [idOf(3), idOf(4)] as unknown as string, since, 5),
    ]);
    expect(arrays).toEqual([[], []]);
  });
});
