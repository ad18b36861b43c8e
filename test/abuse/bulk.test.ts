// lanes: sqlite postgres
/**
 * Attacks on bulk customer actions: a Sales member's jobs aimed at a colleague's customers, ids of
 * another project, a job of another project read through this one, and lists too large to take.
 */
import { describe, expect, it } from 'vitest';
import { type AbuseProject, type AbuseUser, addMember, createProject, signUp, underAttack, useAbuseServer } from './harness.ts';

const t = useAbuseServer();

interface Answer {
  status: number;
  code?: string;
  msg?: string;
  data?: Record<string, unknown>;
}

interface Job {
  id: string;
  status: string;
  total: number;
  done: number;
  failed: number;
  failures: { byCode: Record<string, number>; first: { customerId: string; code: string; reason: string }[] };
}

let master: AbuseUser;
let attacker: AbuseUser;
let colleague: AbuseUser;
let stranger: AbuseUser;
let project: AbuseProject;
let other: AbuseProject;

async function call(user: AbuseUser, method: string, path: string, body?: unknown): Promise<{ http: number; body: Answer }> {
  const res = await fetch(`${t.server.base}${path}`, {
    method,
    headers: { ...user.auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { http: res.status, body: (text.startsWith('{') ? JSON.parse(text) : { status: -1 }) as Answer };
}

const bulk = (p: AbuseProject) => `/api/v1.7/app/${p.appId}/customers/bulk`;

async function createCustomer(user: AbuseUser, p: AbuseProject, name: string): Promise<string> {
  const res = await call(user, 'POST', `/api/v1.7/app/${p.appId}/member/${user.id}/customers`, {
    name,
    email: `${name.replace(/\W/g, '')}@example.com`,
  });
  expect(res.body.status).toBe(1);
  return (res.body.data as { id: string }).id;
}

async function detail(user: AbuseUser, id: string): Promise<Record<string, unknown>> {
  return (await call(user, 'GET', `/api/v1.7/customer/${id}/detail`)).body.data as Record<string, unknown>;
}

async function settled(user: AbuseUser, p: AbuseProject, id: string): Promise<Job> {
  for (let i = 0; i < 600; i += 1) {
    const job = (await call(user, 'GET', `${bulk(p)}/${id}`)).body.data as unknown as Job;
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('bulk job did not settle');
}

async function runJob(user: AbuseUser, p: AbuseProject, body: Record<string, unknown>): Promise<Job> {
  const res = await call(user, 'POST', bulk(p), body);
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ status: 1 });
  return settled(user, p, (res.body.data as { id: string }).id);
}

/** The colleague's list of their customers: the request probed while the attack runs. */
const probe = () => fetch(`${t.server.base}/api/v1.7/app/${project.appId}/member/all/customers?count=20`, { headers: colleague.auth });

describe('bulk abuse', () => {
  it('sets up a project with a Sales attacker and a colleague, and another project', async () => {
    [master, attacker, colleague, stranger] = await Promise.all([signUp(t.server), signUp(t.server), signUp(t.server), signUp(t.server)]);
    project = await createProject(t.server, master);
    other = await createProject(t.server, stranger, 'Other project');
    await addMember(t.server, master, project.appId, attacker);
    await addMember(t.server, master, project.appId, colleague);
  });

  it(
    "neither moves, groups, deletes, exports nor mails a colleague's customer, and answers for it as for an unknown id",
    { timeout: 120_000 },
    async () => {
      const theirs = await Promise.all([1, 2, 3].map((i) => createCustomer(colleague, project, `Their Customer ${i}`)));
      const mine = await createCustomer(attacker, project, 'Attacker Own');
      const before = await Promise.all(theirs.map((id) => detail(colleague, id)));
      const group = (await call(attacker, 'POST', `/api/v1.7/app/${project.appId}/customer-groups`, { name: 'Loot' })).body.data as {
        id: string;
      };
      const unknown = '0190aaaa-0000-7000-8000-000000000000';
      const attack = await underAttack(
        t.server,
        async () => {
          const ids = [...theirs, unknown, mine];
          return [
            await runJob(attacker, project, { action: 'assign', customerIds: ids, targetSvcUserId: attacker.id }),
            await runJob(attacker, project, { action: 'group', customerIds: ids, groupId: group.id }),
            await runJob(attacker, project, { action: 'export', customerIds: ids }),
            await runJob(attacker, project, { action: 'delete', customerIds: [...theirs, unknown] }),
            // "All matching" with the owner filter set to the colleague: refused, as the list refuses it.
            await call(attacker, 'POST', bulk(project), { action: 'delete', all: { svcUserId: String(colleague.id) } }),
            // Assigning to the colleague (giving away): the Master's and the Admins' alone.
            await call(attacker, 'POST', bulk(project), { action: 'assign', customerIds: [mine], targetSvcUserId: colleague.id }),
          ] as const;
        },
        probe,
      );
      const [assign, grouped, exported, deleted, allTheirs, giveAway] = attack.result;
      for (const job of [assign, grouped, exported]) expect(job).toMatchObject({ status: 'done', total: 5, done: 1, failed: 4 });
      expect(deleted).toMatchObject({ status: 'done', total: 4, done: 0, failed: 4 });
      // A colleague's customer fails exactly as an id that exists nowhere.
      for (const job of [assign, grouped, exported, deleted]) {
        const reasons = new Set(job.failures.first.map((f) => `${f.code}:${f.reason}`));
        expect([...reasons]).toEqual(['customer_not_found:No such customer']);
      }
      expect(allTheirs).toMatchObject({ http: 403 });
      expect(giveAway).toMatchObject({ http: 403 });
      const file = await fetch(`${t.server.base}${bulk(project)}/${exported.id}/file`, { headers: attacker.auth });
      const text = await file.text();
      expect(text).toContain('Attacker Own');
      expect(text).not.toContain('Their Customer');
      expect(await Promise.all(theirs.map((id) => detail(colleague, id)))).toEqual(before);
      expect(t.server.alive()).toBe(true);
      expect(attack.worstMs).toBeLessThan(1000);
    },
  );

  it("touches no customer of another project, and shows no job of another project's", { timeout: 120_000 }, async () => {
    const foreign = await createCustomer(stranger, other, 'Foreign Customer');
    const before = await detail(stranger, foreign);
    const job = await runJob(master, project, { action: 'delete', customerIds: [foreign] });
    expect(job).toMatchObject({ done: 0, failed: 1, failures: { byCode: { customer_not_found: 1 } } });
    const assigned = await runJob(master, project, { action: 'assign', customerIds: [foreign], targetSvcUserId: master.id });
    expect(assigned).toMatchObject({ done: 0, failed: 1 });
    expect(await detail(stranger, foreign)).toEqual(before);
    // The master's job, read by the other project's owner through their own project, or through this one.
    expect((await call(stranger, 'GET', `${bulk(other)}/${job.id}`)).body).toMatchObject({ status: 0, code: 'bulk_not_found' });
    expect((await call(stranger, 'GET', `${bulk(project)}/${job.id}`)).http).toBe(403);
    // Their group and their campaign are not found from this project.
    const theirGroup = (await call(stranger, 'POST', `/api/v1.7/app/${other.appId}/customer-groups`, { name: 'Theirs' })).body.data as {
      id: string;
    };
    const mine = await createCustomer(master, project, 'Master Own');
    expect(
      (await call(master, 'POST', bulk(project), { action: 'group', customerIds: [mine], groupId: theirGroup.id })).body,
    ).toMatchObject({
      status: 0,
      code: 'group_not_found',
    });
  });

  it('refuses lists too large to take, by count and by size, and stays quick for others', { timeout: 120_000 }, async () => {
    const attack = await underAttack(
      t.server,
      async () => {
        const many = Array.from({ length: 10_001 }, (_, i) => `0190aaaa-0000-7000-8000-${String(i).padStart(12, '0')}`);
        const byCount = await call(attacker, 'POST', bulk(project), { action: 'delete', customerIds: many });
        const huge = JSON.stringify({
          action: 'delete',
          customerIds: Array.from({ length: 40_000 }, (_, i) => `id-${i}-${'x'.repeat(20)}`),
        });
        const bySize = await call(attacker, 'POST', bulk(project), huge);
        const longIds = await call(attacker, 'POST', bulk(project), { action: 'delete', customerIds: ['x'.repeat(65)] });
        return { byCount, bySize, longIds };
      },
      probe,
    );
    expect(attack.result.byCount.body).toMatchObject({ status: 0, code: 'bulk_too_many' });
    expect(attack.result.bySize.http).toBe(413);
    expect(attack.result.longIds.body).toMatchObject({ status: 0, code: 'Bad Request' });
    expect(t.server.alive()).toBe(true);
    expect(attack.worstMs).toBeLessThan(1000);
  });
});
