// lanes: sqlite postgres
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitQueueFull, createCommitGroup, durableCommits } from '../../../src/db/group-commit.ts';
import { type TestServer, startTestServer, useTestServer } from '../../helpers/harness.ts';
import { DAY, type HistoryProject, addCustomers, ago, event, historyProject, ingest } from '../../helpers/histories.ts';

const record = (id: string, customerId = 'gc-customer') =>
  event('BehaviourLog', id, {
    customerId,
    action: 'access_site',
    when: ago(DAY),
    content: JSON.stringify({ web_access_log_id: `w-${id}`, title: 'Pricing', site: 'example.com' }),
  });

async function storedIds(server: TestServer, p: HistoryProject, prefix: string): Promise<string[]> {
  const rows = await server.ctx.database.db
    .selectFrom('behaviour_logs')
    .select('id')
    .where('app_id', '=', p.appId)
    .where('id', 'like', `${prefix}%`)
    .execute();
  return rows.map((r) => r.id).sort();
}

async function outboxIds(server: TestServer, p: HistoryProject, prefix: string): Promise<string[]> {
  const rows = await server.ctx.database.db
    .selectFrom('outbox')
    .select('domain_id')
    .where('app_id', '=', p.appId)
    .where('domain_id', 'like', `${prefix}%`)
    .execute();
  return rows.map((r) => r.domain_id).sort();
}

describe('small writes at once (group commit)', () => {
  const t = useTestServer();
  let p: HistoryProject;

  beforeAll(async () => {
    p = await historyProject(t.server);
    await addCustomers(t.server, p, [{ id: 'gc-customer', owner: p.master.id }]);
  });

  it('acknowledges every concurrent one-record request once its record, its event and its counts are stored', async () => {
    const n = 300;
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => ingest(t.server, p, [record(`many-${i}`)])));
    for (const a of answers) expect(a.json()).toEqual({ status: 1, data: { accepted: 1, duplicates: 0 } });
    const expected = Array.from({ length: n }, (_, i) => `many-${i}`).sort();
    expect(await storedIds(t.server, p, 'many-')).toEqual(expected);
    expect(await outboxIds(t.server, p, 'many-')).toEqual(expected);
    const total = await t.server.ctx.database.db
      .selectFrom('behaviour_totals')
      .select('count')
      .where('app_id', '=', p.appId)
      .where('customer_id', '=', 'gc-customer')
      .where('kind', '=', 'action')
      .where('key', '=', 'access_site')
      .executeTakeFirstOrThrow();
    expect(Number(total.count)).toBe(n);
  });

  it('fails only the bad request of a group, and stores a record sent twice at once only once', async () => {
    const answers = await Promise.all([
      ingest(t.server, p, [record('twice-1')]),
      ingest(t.server, p, [record('twice-1')]),
      ingest(t.server, p, [record('mixed-bad', 'no-such-customer')]),
      ...Array.from({ length: 20 }, (_, i) => ingest(t.server, p, [record(`mixed-${i}`)])),
    ]);
    const [first, second, bad, ...rest] = answers.map(
      (a) => a.json() as { status: number; code?: string; data?: { accepted: number; duplicates: number } },
    );
    // One of the two stored it; the other saw a duplicate (in either order).
    expect([first?.data, second?.data]).toEqual(
      expect.arrayContaining([
        { accepted: 1, duplicates: 0 },
        { accepted: 0, duplicates: 1 },
      ]),
    );
    expect(bad).toMatchObject({ status: 0, code: 'invalid_events' });
    for (const r of rest) expect(r).toEqual({ status: 1, data: { accepted: 1, duplicates: 0 } });
    expect(await storedIds(t.server, p, 'twice-')).toEqual(['twice-1']);
    expect(await outboxIds(t.server, p, 'twice-')).toEqual(['twice-1']);
    expect(await storedIds(t.server, p, 'mixed-')).toHaveLength(20);
  });

  it('splits a group whose commit fails, so that only the job that cannot be written fails', async () => {
    const sizes: number[] = [];
    const group = createCommitGroup<string>(
      durableCommits(t.server.ctx.database.db),
      async (trx, jobs) => {
        sizes.push(jobs.length);
        await sql`select 1`.execute(trx);
        if (jobs.includes('poison')) throw new Error('cannot write poison');
      },
      { maxRecords: 256, maxWaitMs: 5, maxQueued: 1000, concurrency: 1 },
    );
    const jobs = ['a', 'b', 'c', 'poison', 'd', 'e', 'f', 'g'];
    const results = await Promise.allSettled(jobs.map((j) => group.submit(j, 1)));
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((results[3] as PromiseRejectedResult).reason).toEqual(new Error('cannot write poison'));
    // One group of eight, then halves down to the poisoned job alone.
    expect(sizes[0]).toBe(8);
    expect(sizes).toContain(1);
    expect(sizes.length).toBeLessThan(jobs.length * 2);
  });

  it('closes a group at its record limit and refuses new jobs once the queue is full', async () => {
    const sizes: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const group = createCommitGroup<number>(
      durableCommits(t.server.ctx.database.db),
      async (_trx, jobs) => {
        sizes.push(jobs.length);
        await gate;
      },
      { maxRecords: 4, maxWaitMs: 1000, maxQueued: 6, concurrency: 1 },
    );
    // The first four make a full group at once (no 1 s wait); it waits on the gate while six more queue.
    const running = [1, 2, 3, 4].map((j) => group.submit(j, 1));
    const queued = [5, 6, 7, 8, 9, 10].map((j) => group.submit(j, 1));
    await expect(group.submit(11, 1)).rejects.toBeInstanceOf(CommitQueueFull);
    expect(group.queued).toBe(6);
    release();
    await Promise.all([...running, ...queued]);
    expect(sizes).toEqual([4, 4, 2]);
  });
});

describe('a full write queue', () => {
  let server: TestServer;
  let p: HistoryProject;
  beforeAll(async () => {
    server = await startTestServer({ WRITE_QUEUE_RECORDS: '2' });
    p = await historyProject(server);
    await addCustomers(server, p, [{ id: 'gc-customer', owner: p.master.id }]);
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 503 overloaded with Retry-After and stores nothing of the refused requests', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => ingest(server, p, [record(`full-${i}`)])));
    const refused = answers.filter((a) => a.statusCode === 503);
    const stored = answers.filter((a) => a.statusCode === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(stored.length).toBeGreaterThan(0);
    for (const a of refused) {
      expect(a.headers['retry-after']).toBe('1');
      expect(a.json()).toMatchObject({ status: 0, code: 'overloaded' });
    }
    for (const a of stored) expect(a.json()).toEqual({ status: 1, data: { accepted: 1, duplicates: 0 } });
    const ids = (await storedIds(server, p, 'full-')).length;
    expect(ids).toBe(stored.length);
  });
});
