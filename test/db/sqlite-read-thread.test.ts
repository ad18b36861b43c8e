// lanes: sqlite main-thread-reads
/**
 * SQLITE_READ_THREAD=true (ADR 0003): SQLite's prepared reads run on a worker thread, the reads of one
 * event-loop turn in one message. The whole suite runs that way once in .ci/run; here, on SQLite,
 * the answers through HTTP must be those of the server without it, the reads must have gone in
 * batches, a batch's first answers must not wait for the rest of it, and a failing read must fail alone.
 */
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedQuery } from '../../src/db/prepared.ts';
import { TEST_DIALECT } from '../helpers/database.ts';
import { type TestServer, startTestServer } from '../helpers/harness.ts';
import { type HistoryProject, DAY, ago, customerEvent, event, historyProject, ingest } from '../helpers/histories.ts';

// Prepares (on the main thread, which learns the columns) but fails when run, on the worker.
const broken = preparedQuery('testReadThreadBroken', ({ db }, text: string) =>
  db
    .selectFrom('customers')
    .select('id')
    .where(sql<number>`json_extract(${text}, '$.a')`, '=', 1),
);

// Counts 1..n in a recursive CTE: a read whose work grows with n (a few ms for 50,000 rows).
const counting = preparedQuery('testReadThreadCounting', ({ db }, n: number) =>
  db
    .withRecursive('r(x)', (qb) =>
      qb.selectNoFrom(sql<number>`1`.as('x')).unionAll((u) =>
        u
          .selectFrom('r')
          .select(sql<number>`x + 1`.as('x'))
          .where('x', '<', n),
      ),
    )
    .selectFrom('r')
    .select((eb) => eb.fn.countAll<number>().as('n')),
);

describe.runIf(TEST_DIALECT === 'sqlite')('SQLite reads on a worker thread', () => {
  let server: TestServer;
  let p: HistoryProject;

  beforeAll(async () => {
    server = await startTestServer({ SQLITE_READ_THREAD: 'true' });
    p = await historyProject(server);
    const batch: unknown[] = [];
    for (let i = 0; i < 12; i += 1) {
      batch.push(
        customerEvent(`c-${i}`, { name: `O'Brien ${i} 中文`, phone: `1390000${String(i % 4).padStart(4, '0')}`, svcUserId: p.sales.id }),
      );
      for (let k = 0; k < i % 4; k += 1)
        batch.push(event('BehaviourLog', `b-${i}-${k}`, { customerId: `c-${i}`, action: 'send_message', when: ago(k * DAY + k) }));
    }
    const res = await ingest(server, p, batch);
    expect(res.json(), res.body).toMatchObject({ status: 1 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers as one at a time, in batches', async () => {
    const urls: string[] = [];
    for (let i = 0; i < 14; i += 1) {
      urls.push(`/api/v1.7/customer/c-${i}/detail`, `/api/v1.7/customer/c-${i}/overview`);
      urls.push(`/api/v1.7/app/${p.appId}/member/customer/c-${i}/behaviour?count=2`);
    }
    urls.push(`/api/v1.7/app/${p.appId}/member/all/customers?start_index=0&count=5`);
    urls.push(`/api/v1.7/app/${p.appId}/customer/appSearch?condition=${encodeURIComponent("O'Brien 1")}`);
    const get = (url: string) => server.api.get(url, { token: p.admin.token });
    const alone: { status: number; body: string }[] = [];
    for (const url of urls) {
      const r = await get(url);
      alone.push({ status: r.statusCode, body: r.body });
    }
    expect(alone.filter((a) => JSON.parse(a.body).status === 1).length).toBeGreaterThan(36);
    const post = Worker.prototype.postMessage;
    let messages = 0;
    Worker.prototype.postMessage = function (this: Worker, ...a: Parameters<typeof post>) {
      messages += 1;
      return post.apply(this, a);
    };
    try {
      const together = await Promise.all(urls.map(get));
      expect(together.map((r) => ({ status: r.statusCode, body: r.body }))).toEqual(alone);
    } finally {
      Worker.prototype.postMessage = post;
    }
    // The reads went to the worker, several to a message.
    expect(messages).toBeGreaterThan(0);
    expect(messages).toBeLessThan(urls.length);
  });

  it("answers a batch's first reads while the worker still runs the rest", async () => {
    const reader = server.ctx.database.reader;
    const short = 50_000;
    const long = 2_000_000;
    // Per message from the worker: which of the two reads' answers it carries (other reads may pass by).
    const carried: number[][] = [];
    const emit = Worker.prototype.emit;
    Worker.prototype.emit = function (this: Worker, ...a: Parameters<typeof emit>) {
      if (a[0] === 'message' && Array.isArray(a[1])) {
        const counts = (a[1] as unknown[][]).map((reply) => (Array.isArray(reply[2]) ? Number(reply[2][0]) : NaN));
        carried.push(counts.filter((n) => n === short || n === long));
      }
      return emit.apply(this, a);
    };
    try {
      // Sent in one turn, so in one message: the first takes more than a slice, the second far more.
      const [first, second] = await Promise.all([reader.first(counting, short), reader.first(counting, long)]);
      expect([Number(first?.n), Number(second?.n)]).toEqual([short, long]);
    } finally {
      Worker.prototype.emit = emit;
    }
    expect(carried.filter((c) => c.length > 0)).toEqual([[short], [long]]);
  });

  it('fails a read that fails, and only that one', async () => {
    const reader = server.ctx.database.reader;
    const [bad, good] = await Promise.allSettled([
      reader.all(broken, 'not json'),
      server.api.get('/api/v1.7/customer/c-1/detail', { token: p.admin.token }),
    ]);
    expect(bad.status).toBe('rejected');
    expect(String((bad as PromiseRejectedResult).reason)).toMatch(/malformed JSON/);
    expect(await reader.all(broken, '{"a":1}')).toHaveLength(12);
    expect(good.status === 'fulfilled' && good.value.json()).toMatchObject({ status: 1, data: { id: 'c-1' } });
  });
});
