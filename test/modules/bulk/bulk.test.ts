// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../../../src/services.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, historyProject } from '../../helpers/histories.ts';

const t = useTestServer({ IMPORT_LEASE_SECONDS: '1', SMTP_URL: 'smtp://127.0.0.1:9', MAIL_WORKER: 'false' });
let p: HistoryProject;

interface Job {
  id: string;
  action: string;
  status: string;
  total: number;
  processed: number;
  done: number;
  failed: number;
  failures: { byCode: Record<string, number>; first: { customerId: string; code: string; reason: string }[] };
  fileUrl: string | null;
  error: string | null;
}

const bulkUrl = () => `/api/v1.7/app/${p.appId}/customers/bulk`;
let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(seq += 1)}`;

async function start(token: string, body: Record<string, unknown>) {
  return (await t.server.api.post(bulkUrl(), body, { token })).json() as { status: number; code?: string; msg?: string; data: Job };
}

async function settled(token: string, id: string): Promise<Job> {
  for (let i = 0; i < 600; i += 1) {
    const job = (await t.server.api.get(`${bulkUrl()}/${id}`, { token })).json().data as Job;
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('bulk job did not settle');
}

async function run(token: string, body: Record<string, unknown>): Promise<Job> {
  const res = await start(token, body);
  expect(res, JSON.stringify(res)).toMatchObject({ status: 1, data: { status: 'queued' } });
  return settled(token, res.data.id);
}

async function rows(ids: string[]) {
  return t.server.ctx.database.db
    .selectFrom('customers')
    .selectAll()
    .where('app_id', '=', p.appId)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
}

async function customers(owner: number, n: number, extra: { name?: string } = {}): Promise<string[]> {
  const list = Array.from({ length: n }, (_, i) => ({ id: uid('c'), owner, name: `${extra.name ?? 'Bulk'} ${i}` }));
  await addCustomers(t.server, p, list);
  return list.map((c) => c.id);
}

beforeAll(async () => {
  p = await historyProject(t.server);
});

describe('bulk actions', () => {
  it('assigns chosen customers to another member (Master), each with its event and audit entry', async () => {
    const ids = await customers(p.sales.id, 3);
    const job = await run(p.master.token, { action: 'assign', customerIds: ids, targetSvcUserId: p.sales2.id });
    expect(job).toMatchObject({ action: 'assign', status: 'done', total: 3, processed: 3, done: 3, failed: 0 });
    expect((await rows(ids)).map((r) => Number(r.owner_id))).toEqual([p.sales2.id, p.sales2.id, p.sales2.id]);
    const listed = (
      await t.server.api.get(`/api/v1.7/app/${p.appId}/member/${p.sales2.id}/customers`, { token: p.sales2.token, query: { count: 100 } })
    ).json().data as { id: string; isNew: number }[];
    expect(listed.filter((c) => ids.includes(c.id)).map((c) => c.isNew)).toEqual([1, 1, 1]);
    const audit = await t.server.ctx.database.db
      .selectFrom('audit_log')
      .select('target_id')
      .where('app_id', '=', p.appId)
      .where('action', '=', 'customer.transfer_owner')
      .where('target_id', 'in', ids)
      .execute();
    expect(audit).toHaveLength(3);
  });

  it("lets a Sales member act only on their own customers: a colleague's fails on its own and stays where it was", async () => {
    const own = await customers(p.sales.id, 2);
    const [theirs] = await customers(p.sales2.id, 1);
    const job = await run(p.sales.token, { action: 'assign', customerIds: [...own, theirs], targetSvcUserId: p.sales.id });
    expect(job).toMatchObject({ status: 'done', total: 3, done: 2, failed: 1, failures: { byCode: { customer_not_found: 1 } } });
    expect(job.failures.first).toEqual([{ customerId: theirs, code: 'customer_not_found', reason: 'No such customer' }]);
    expect(Number((await rows([theirs as string]))[0]?.owner_id)).toBe(p.sales2.id);

    // Giving customers to someone else is the Master's and the Admins' (as transfers).
    const refused = await t.server.api.post(
      bulkUrl(),
      { action: 'assign', customerIds: own, targetSvcUserId: p.sales2.id },
      { token: p.sales.token },
    );
    expect(refused.statusCode).toBe(403);
    expect((await rows(own)).every((r) => Number(r.owner_id) === p.sales.id)).toBe(true);

    // A Sales member's delete of a colleague's customer leaves it live.
    const del = await run(p.sales.token, { action: 'delete', customerIds: [theirs] });
    expect(del).toMatchObject({ done: 0, failed: 1 });
    expect((await rows([theirs as string]))[0]?.status).toBe(1);
  });

  it('adds every customer matching the filters, frozen at the start, to a group; customers of another owner fail', async () => {
    const tag = uid('Grp');
    const mine = await customers(p.sales.id, 4, { name: tag });
    const [other] = await customers(p.sales2.id, 1, { name: tag });
    const group = (await t.server.api.post(`/api/v1.7/app/${p.appId}/customer-groups`, { name: tag }, { token: p.sales.token })).json()
      .data as { id: string };
    // The Master's "all matching" (everyone's customers with the keyword) into the Sales member's group.
    const job = await run(p.master.token, { action: 'group', all: { keyword: tag }, groupId: group.id });
    expect(job).toMatchObject({ status: 'done', total: 5, done: 4, failed: 1, failures: { byCode: { group_owner_mismatch: 1 } } });
    expect((await rows(mine)).every((r) => r.group_id === group.id)).toBe(true);
    expect((await rows([other as string]))[0]?.group_id).toBeNull();
    // A Sales member's "all matching" is their own customers only.
    const sales = await run(p.sales.token, { action: 'delete', all: { keyword: tag, svcUserId: 'all' } });
    expect(sales).toMatchObject({ total: 4, done: 4, failed: 0 });
    expect((await rows([other as string]))[0]?.status).toBe(1);
    const listed = (
      await t.server.api.get(`/api/v1.7/app/${p.appId}/member/all/customers`, { token: p.master.token, query: { keyword: tag } })
    ).json().data as { id: string }[];
    expect(listed.map((c) => c.id)).toEqual([other]);
  });

  it("exports chosen customers as a file the job's creator downloads; others do not see the job", async () => {
    const ids = await customers(p.sales.id, 3, { name: uid('Exp') });
    const [theirs] = await customers(p.sales2.id, 1);
    const job = await run(p.sales.token, { action: 'export', customerIds: [...ids, theirs], format: 'csv' });
    expect(job).toMatchObject({ status: 'done', total: 4, done: 3, failed: 1 });
    expect(job.fileUrl).toBe(`${bulkUrl()}/${job.id}/file`);
    const file = await t.server.api.get(job.fileUrl as string, { token: p.sales.token });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toContain('text/csv');
    const lines = file.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines).toHaveLength(4);
    for (const id of ids) expect(file.body).toContain(id);
    expect(file.body).not.toContain(theirs);
    const other = await t.server.api.get(`${bulkUrl()}/${job.id}`, { token: p.sales2.token });
    expect(other.json()).toMatchObject({ status: 0, code: 'bulk_not_found' });
    const otherFile = await t.server.api.get(job.fileUrl as string, { token: p.sales2.token });
    expect(otherFile.json()).toMatchObject({ status: 0, code: 'bulk_not_found' });
    // The Master sees it, and the member's list of recent jobs has it.
    expect((await t.server.api.get(`${bulkUrl()}/${job.id}`, { token: p.master.token })).json()).toMatchObject({ status: 1 });
    const recent = (await t.server.api.get(bulkUrl(), { token: p.sales.token })).json().data as Job[];
    expect(recent.map((j) => j.id)).toContain(job.id);
  });

  it('adds customers to a campaign that has not started sending; one without an address fails', async () => {
    const withMail = uid('m');
    const noMail = uid('n');
    const now = Date.now();
    await t.server.ctx.database.db
      .insertInto('customers')
      .values([
        {
          id: withMail,
          app_id: p.appId,
          owner_id: p.sales.id,
          name: 'Mailable',
          email: `${withMail}@example.com`,
          status: 1,
          is_new: 1,
          created_at: now,
          updated_at: now,
        },
        {
          id: noMail,
          app_id: p.appId,
          owner_id: p.sales.id,
          name: 'Mailless',
          email: null,
          status: 1,
          is_new: 1,
          created_at: now,
          updated_at: now,
        },
      ])
      .execute();
    const [seed] = await customers(p.sales.id, 1);
    await t.server.ctx.database.db
      .updateTable('customers')
      .set({ email: `${seed}@example.com` })
      .where('app_id', '=', p.appId)
      .where('id', '=', seed as string)
      .execute();
    const created = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/posts`,
      { title: 'Later', html: '<p>Hi {{name}}</p>', customer_ids: seed, send_at: '2099-01-01T00:00:00Z' },
      { token: p.sales.token },
    );
    expect(created.json(), created.body).toMatchObject({ status: 1 });
    const postId = created.json().data.postId as string;
    const job = await run(p.sales.token, { action: 'campaign', customerIds: [withMail, noMail, seed], campaignId: postId });
    expect(job).toMatchObject({ status: 'done', done: 2, failed: 1, failures: { byCode: { no_recipients: 1 } } });
    const post = (await t.server.api.get(`/api/v1.7/app/${p.appId}/post/${postId}`, { token: p.sales.token })).json().data as Record<
      string,
      unknown
    >;
    expect(post.recipientCount ?? post.recipients).toBeDefined();
    const recipients = await t.server.ctx.database.db
      .selectFrom('campaign_recipients')
      .select('customer_id')
      .where('app_id', '=', p.appId)
      .where('campaign_id', '=', postId)
      .orderBy('customer_id')
      .execute();
    expect(recipients.map((r) => r.customer_id).sort()).toEqual([seed, withMail].sort());

    // A campaign sending now takes no more customers: refused before a job starts.
    const sending = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/posts`,
      { title: 'Now', html: '<p>Hi</p>', customer_ids: seed },
      { token: p.sales.token },
    );
    const refused = await start(p.sales.token, { action: 'campaign', customerIds: [withMail], campaignId: sending.json().data.postId });
    expect(refused).toMatchObject({ status: 0, code: 'post_not_open' });
  });

  it('refuses bad requests with a clear error and records nothing', async () => {
    const [id] = await customers(p.sales.id, 1);
    const before = await t.server.ctx.database.db
      .selectFrom('customer_bulk_jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', p.appId)
      .executeTakeFirstOrThrow();
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'explode', customerIds: [id] }, 'Bad Request'],
      [{ action: 'delete' }, 'Bad Request'],
      [{ action: 'delete', customerIds: [id], all: {} }, 'Bad Request'],
      [{ action: 'delete', customerIds: [] }, 'Bad Request'],
      [{ action: 'assign', customerIds: [id] }, 'Bad Request'],
      [{ action: 'assign', customerIds: [id], targetSvcUserId: 999999 }, 'target_svc_userid_invalid'],
      [{ action: 'group', customerIds: [id], groupId: 'nope' }, 'group_not_found'],
      [{ action: 'campaign', customerIds: [id], campaignId: 'nope' }, 'post_not_found'],
      [{ action: 'export', customerIds: [id], format: 'pdf' }, 'Bad Request'],
      [{ action: 'delete', customerIds: Array.from({ length: 10_001 }, (_, i) => `x${i}`) }, 'bulk_too_many'],
      [{ action: 'delete', all: { keyword: 'no-such-customer-anywhere' } }, 'Bad Request'],
    ];
    for (const [body, code] of cases) {
      const res = await t.server.api.post(bulkUrl(), body, { token: p.master.token });
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(200);
      expect(res.json(), JSON.stringify(body).slice(0, 80)).toMatchObject({ status: 0, code });
    }
    const after = await t.server.ctx.database.db
      .selectFrom('customer_bulk_jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', p.appId)
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('holds a project to three jobs under way', async () => {
    await t.server.services.jobs.stop();
    try {
      const ids = await customers(p.master.id, 1);
      const started: string[] = [];
      for (let i = 0; i < 3; i += 1)
        started.push((await start(p.master.token, { action: 'assign', customerIds: ids, targetSvcUserId: p.master.id })).data.id);
      expect(await start(p.master.token, { action: 'delete', customerIds: ids })).toMatchObject({ status: 0, code: 'bulk_busy' });
      t.server.services.jobs.start(['customer-bulk']);
      for (const id of started) expect(await settled(p.master.token, id)).toMatchObject({ status: 'done', done: 1 });
    } finally {
      t.server.services.jobs.start(['customer-bulk']);
    }
  });

  it('resumes a job a stopped process left, after its last committed batch, repeating no customer', async () => {
    await t.server.services.jobs.stop();
    const ids = await customers(p.sales.id, 1000);
    const queued = await start(p.master.token, { action: 'assign', customerIds: ids, targetSvcUserId: p.admin.id });
    expect(queued).toMatchObject({ status: 1, data: { status: 'queued', total: 1000 } });
    // As a process that stopped after its second batch (of 200) would leave it: running, 400 done, its lease run out.
    await t.server.ctx.database.db
      .updateTable('customer_bulk_jobs')
      .set({ status: 'running', processed: 400, succeeded: 400, lease_until: Date.now() - 1 })
      .where('app_id', '=', p.appId)
      .where('id', '=', queued.data.id)
      .execute();
    const other = createServices(t.server.ctx);
    other.jobs.start(['customer-bulk']);
    try {
      const job = await settled(p.master.token, queued.data.id);
      expect(job).toMatchObject({ status: 'done', total: 1000, processed: 1000, done: 1000, failed: 0 });
    } finally {
      await other.jobs.stop();
    }
    const after = await rows(ids);
    // The customers of the batches committed before the stop are not done again; every later one is.
    expect(after.filter((r) => Number(r.owner_id) === p.admin.id).map((r) => r.id)).toEqual(ids.slice(400).sort());
    t.server.services.jobs.start(['customer-bulk']);
  });
});
