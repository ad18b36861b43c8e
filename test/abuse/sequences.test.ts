// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { type AbuseProject, type AbuseUser, apiCall, readScalar, salesTeam, underAttack, useAbuseServer } from './harness.ts';

/**
 * Sequences under attack (docs/sequences.md): another project's Master naming this project's sequence,
 * enrolment and customer ids; a Sales member enrolling a colleague's customers; oversized and hostile
 * bodies; the inbound mail webhook probed with made-up tokens and flooded with mails while another
 * member works.
 */
const t = useAbuseServer();
let owner: AbuseUser;
let sales: AbuseUser;
let colleague: AbuseUser;
let stranger: AbuseUser;
let project: AbuseProject;
let other: AbuseProject;
let mine: string;
let theirs: string;
let sequenceId: string;
let theirEnrollment: string;
let inboundPath: string;

const json = { 'content-type': 'application/json' };
const call = (user: AbuseUser | null, method: string, path: string, body?: unknown) => apiCall(t.server, user, method, path, body);
const app = () => `/api/v1.7/app/${project.appId}`;
const count = async (table: 'sequences' | 'sequence_enrollments' | 'sequence_versions') =>
  Number(await readScalar(t.server, `select count(*) from ${table} where app_id = ?`, [project.appId]));
const stateOf = async (id: string) => String(await readScalar(t.server, 'select state from sequence_enrollments where id = ?', [id]));

async function customerOf(user: AbuseUser, name: string, email: string): Promise<string> {
  const res = await call(user, 'POST', `${app()}/member/${user.id}/customers`, { name, email });
  if (res.body.status !== 1) throw new Error(JSON.stringify(res.body));
  return res.body.data?.id as string;
}

async function settled(user: AbuseUser, bulkId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 400; i += 1) {
    const job = (await call(user, 'GET', `${app()}/customers/bulk/${bulkId}`)).body.data ?? {};
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('job did not settle');
}

beforeAll(async () => {
  ({ owner, sales, colleague, stranger, project, other } = await salesTeam(t.server, 'Sequences'));
  mine = await customerOf(sales, 'Mine', 'mine@example.com');
  theirs = await customerOf(colleague, 'Theirs', 'theirs@example.com');
  const seq = await call(colleague, 'POST', `${app()}/sequences`, { name: 'Private cadence', steps: [{ type: 'task', title: 'private' }] });
  sequenceId = seq.body.data?.id as string;
  const job = await call(colleague, 'POST', `${app()}/sequence/${sequenceId}/enrollments`, { customer_ids: [theirs] });
  expect(await settled(colleague, job.body.data?.id as string)).toMatchObject({ status: 'done', done: 1 });
  const listed = await call(colleague, 'GET', `${app()}/customer/${theirs}/enrollments`);
  theirEnrollment = (listed.body.data as unknown as { id: string }[])[0]!.id;
  const settings = await call(owner, 'GET', `${app()}/sequence-settings`);
  inboundPath = new URL(String(settings.body.data?.inboundUrl)).pathname;
});

describe('sequences under attack', () => {
  it("another project's Master gets the answers of ids that do not exist, and changes nothing", async () => {
    const own = `/api/v1.7/app/${other.appId}`;
    const before = await Promise.all([count('sequences'), count('sequence_versions'), count('sequence_enrollments')]);
    const unknownSequence = (await call(stranger, 'GET', `${own}/sequence/no-such-sequence`)).body;
    for (const a of [
      await call(stranger, 'GET', `${own}/sequence/${sequenceId}`),
      await call(stranger, 'PUT', `${own}/sequence/${sequenceId}`, { name: 'x', steps: [{ type: 'task', title: 'x' }] }),
      await call(stranger, 'DELETE', `${own}/sequence/${sequenceId}`),
      await call(stranger, 'GET', `${own}/sequence/${sequenceId}/versions/1`),
      await call(stranger, 'GET', `${own}/sequence/${sequenceId}/enrollments`),
      await call(stranger, 'POST', `${own}/sequence/${sequenceId}/enrollments`, { customer_ids: [theirs] }),
      await call(stranger, 'POST', `${own}/customers/bulk`, { action: 'enroll', sequenceId, customerIds: [theirs] }),
    ])
      expect(a.body).toEqual(unknownSequence);
    const unknownEnrollment = (await call(stranger, 'POST', `${own}/enrollment/no-such-enrollment/pause`)).body;
    for (const verb of ['pause', 'resume', 'exit'])
      expect((await call(stranger, 'POST', `${own}/enrollment/${theirEnrollment}/${verb}`)).body).toEqual(unknownEnrollment);
    const unknownCustomer = (await call(stranger, 'POST', `${own}/customer/no-such-customer/replied`)).body;
    expect((await call(stranger, 'POST', `${own}/customer/${theirs}/replied`)).body).toEqual(unknownCustomer);
    expect((await call(stranger, 'GET', `${own}/customer/${theirs}/enrollments`)).body).toEqual(unknownCustomer);
    // This project's paths: not a member, refused before anything is read.
    for (const [method, path] of [
      ['GET', `${app()}/sequence/${sequenceId}`],
      ['POST', `${app()}/enrollment/${theirEnrollment}/exit`],
      ['GET', `${app()}/sequence-settings`],
    ] as const)
      expect((await call(stranger, method, path, method === 'POST' ? {} : undefined)).status).toBe(403);
    expect(await Promise.all([count('sequences'), count('sequence_versions'), count('sequence_enrollments')])).toEqual(before);
    expect(await stateOf(theirEnrollment)).toBe('active');
  });

  it("a Sales member enrols, steers and marks replied none of a colleague's customers", async () => {
    const seq = await call(sales, 'POST', `${app()}/sequences`, { name: 'Mine', steps: [{ type: 'call', title: 'call' }] });
    const mineSeq = seq.body.data?.id as string;
    const job = await call(sales, 'POST', `${app()}/sequence/${mineSeq}/enrollments`, { customer_ids: [theirs, mine] });
    expect(await settled(sales, job.body.data?.id as string)).toMatchObject({
      done: 1,
      failed: 1,
      failures: { byCode: { customer_not_found: 1 } },
    });
    const all = await call(sales, 'POST', `${app()}/sequence/${mineSeq}/enrollments`, { all: { svcUserId: String(colleague.id) } });
    // Naming another member's customers in the filters is refused as the list refuses it.
    expect({ status: all.status, body: all.body }).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    for (const verb of ['pause', 'exit'])
      expect((await call(sales, 'POST', `${app()}/enrollment/${theirEnrollment}/${verb}`)).body).toMatchObject({
        code: 'enrollment_not_found',
      });
    expect((await call(sales, 'POST', `${app()}/customer/${theirs}/replied`)).body).toMatchObject({ code: 'customer_not_found' });
    expect((await call(sales, 'DELETE', `${app()}/sequence/${sequenceId}`)).body).toMatchObject({ code: 'sequence_not_found' });
    expect(await stateOf(theirEnrollment)).toBe('active');
  });

  it('oversized and hostile bodies are refused in the documented shapes, never a 5xx, nothing half-written', async () => {
    const before = await Promise.all([count('sequences'), count('sequence_versions')]);
    const huge = await fetch(`${t.server.base}${app()}/sequences`, {
      method: 'POST',
      headers: { ...sales.auth, ...json },
      body: JSON.stringify({ name: 'big', steps: [{ type: 'email', title: 'x', html: 'x'.repeat(5 * 1024 * 1024) }] }),
    });
    expect(huge.status).toBe(413);
    const cases: unknown[] = [
      { name: 'x', steps: [{ type: 'email', title: 'x', html: 'x'.repeat(600_000) }] },
      { name: 'x', steps: Array.from({ length: 100 }, () => ({ type: 'task', title: 'x' })) },
      { name: 'x', steps: [{ type: 'task', title: 'x', waitDays: 1e12 }] },
      { name: 'x', steps: [{ type: 'task', title: 'x', waitDays: 1.5 }] },
      { name: 'x', steps: 'not a list' },
      { name: 'x', steps: [{ type: 'task', title: 'x', extra: 1 }] },
      { name: 'nul \u0000', steps: [{ type: 'task', title: 'x' }] },
      { name: 'x', steps: [{ type: 'task', title: 'x' }], jump: { readShare: 50, toStep: 1 } },
      { name: 'x', steps: [{ type: 'task', title: 'x' }], deckLinkId: '../../etc/passwd' },
      '{"name":',
      '[]',
    ];
    for (const body of cases) {
      const res = await call(sales, 'POST', `${app()}/sequences`, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(200);
      expect(res.body.status, JSON.stringify(body).slice(0, 80)).toBe(0);
    }
    const ids = Array.from({ length: 10_001 }, (_, i) => `c${i}`);
    expect((await call(sales, 'POST', `${app()}/sequence/${sequenceId}/enrollments`, { customer_ids: ids })).body).toMatchObject({
      code: 'bulk_too_many',
    });
    const bigIds = await fetch(`${t.server.base}${app()}/sequence/${sequenceId}/enrollments`, {
      method: 'POST',
      headers: { ...sales.auth, ...json },
      body: JSON.stringify({ customer_ids: Array.from({ length: 20_000 }, (_, i) => `customer-${'x'.repeat(40)}-${i}`) }),
    });
    expect(bigIds.status).toBe(413);
    for (const body of [
      { timeZone: '../../etc/passwd' },
      { windowStart: '99:99' },
      { days: [1, 2, 3, 4, 5, 6, 7, 8] },
      { dailyCap: -1 },
      { replyAddress: 'x'.repeat(400) },
    ])
      expect((await call(owner, 'PUT', `${app()}/sequence-settings`, body)).body.status).toBe(0);
    expect(await Promise.all([count('sequences'), count('sequence_versions')])).toEqual(before);
  });

  it('the inbound webhook: made-up tokens answer 404 before the body is read; a flood of mails leaves others answered', async () => {
    for (const token of ['x', 'a'.repeat(32), 'a'.repeat(200), '..%2F..%2Fetc', inboundPath.split('/').pop()!.toUpperCase()]) {
      const res = await call(null, 'POST', `/hooks/inbound-mail/${token}`, { from: 'theirs@example.com' });
      expect([400, 404], token).toContain(res.status);
    }
    expect(await stateOf(theirEnrollment)).toBe('active');
    // A wrong token with a huge body: refused at once, not read.
    const big = await fetch(`${t.server.base}/hooks/inbound-mail/${'b'.repeat(32)}`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ from: 'x@example.com', text: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.status).toBe(404);
    const hostile = [
      { from: { nested: true } },
      { from: 'x'.repeat(100_000) },
      { FromFull: 'not an object' },
      { sender: '<<>>@@' },
      '[1,2,3]',
      'null',
    ];
    for (const body of hostile) expect((await call(null, 'POST', inboundPath, body)).status, String(body).slice(0, 40)).toBeLessThan(500);
    const { result, worstMs } = await underAttack(
      t.server,
      async () => {
        const answers = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            call(null, 'POST', inboundPath, { from: `nobody${i}@example.org`, text: 'x'.repeat(50_000) }),
          ),
        );
        return answers.filter((a) => a.status === 200 || a.status === 429).length;
      },
      () => fetch(`${t.server.base}${app()}/sequences`, { headers: colleague.auth }),
    );
    expect(t.server.alive()).toBe(true);
    expect(result).toBe(100);
    expect(worstMs).toBeLessThan(1000);
    expect(await stateOf(theirEnrollment)).toBe('active');
    // The real sender's mail still works.
    expect((await call(null, 'POST', inboundPath, { from: 'Theirs <THEIRS@example.com>' })).status).toBe(200);
    expect(await stateOf(theirEnrollment)).toBe('exited');
  });
});
