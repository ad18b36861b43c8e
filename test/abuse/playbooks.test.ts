// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AbuseProject,
  type AbuseUser,
  addMember,
  apiCall,
  createProject,
  readScalar,
  signUp,
  underAttack,
  useAbuseServer,
} from './harness.ts';

/**
 * Playbooks under attack (docs/playbooks.md): another project's Master naming this project's playbook,
 * sequence and members; a webhook action aimed at the server's own network; oversized and hostile
 * bodies; a storm of dry runs while another member works.
 */
const t = useAbuseServer();
let owner: AbuseUser;
let sales: AbuseUser;
let stranger: AbuseUser;
let project: AbuseProject;
let other: AbuseProject;
let playbookId: string;
let sequenceId: string;

const json = { 'content-type': 'application/json' };
const call = (user: AbuseUser | null, method: string, path: string, body?: unknown) => apiCall(t.server, user, method, path, body);
const app = () => `/api/v1.7/app/${project.appId}`;
const own = () => `/api/v1.7/app/${other.appId}`;
const count = async (table: 'playbooks' | 'playbook_runs') =>
  Number(await readScalar(t.server, `select count(*) from ${table} where app_id = ?`, [project.appId]));
const countOther = async () => Number(await readScalar(t.server, 'select count(*) from playbooks where app_id = ?', [other.appId]));

const draft = (actions: unknown[], trigger: unknown = { kind: 'form_submitted', conditions: {} }) => ({ name: 'Probe', trigger, actions });

beforeAll(async () => {
  [owner, sales, stranger] = await Promise.all([signUp(t.server), signUp(t.server), signUp(t.server)]);
  project = await createProject(t.server, owner, 'Playbooks');
  other = await createProject(t.server, stranger, 'Other');
  await addMember(t.server, owner, project.appId, sales);
  const seq = await call(owner, 'POST', `${app()}/sequences`, { name: 'Cadence', steps: [{ type: 'task', title: 'follow up' }] });
  sequenceId = seq.body.data?.id as string;
  expect(sequenceId).toBeTruthy();
  const made = await call(owner, 'POST', `${app()}/playbooks`, draft([{ type: 'enroll', sequenceId }]));
  expect(made.body.status, JSON.stringify(made.body)).toBe(1);
  playbookId = made.body.data?.id as string;
});

describe('playbooks under attack', () => {
  it("another project's Master gets the answers of ids that do not exist, and changes nothing", async () => {
    const before = [await count('playbooks'), await countOther()];
    const unknown = (await call(stranger, 'GET', `${own()}/playbook/no-such-playbook`)).body;
    expect(unknown).toMatchObject({ status: 0, code: 'playbook_not_found' });
    for (const a of [
      await call(stranger, 'GET', `${own()}/playbook/${playbookId}`),
      await call(stranger, 'PUT', `${own()}/playbook/${playbookId}`, { enabled: false }),
      await call(stranger, 'DELETE', `${own()}/playbook/${playbookId}`),
      await call(stranger, 'GET', `${own()}/playbook/${playbookId}/runs`),
      await call(stranger, 'POST', `${own()}/playbook-dry-runs`, { playbookId }),
    ])
      expect(a.body).toEqual(unknown);
    // This project's sequence and members named from the other project: as unknown ones.
    const noSequence = await call(stranger, 'POST', `${own()}/playbooks`, draft([{ type: 'enroll', sequenceId: 'no-such-sequence' }]));
    const theirSequence = await call(stranger, 'POST', `${own()}/playbooks`, draft([{ type: 'enroll', sequenceId }]));
    expect(theirSequence.body).toEqual(noSequence.body);
    expect(noSequence.body).toMatchObject({ status: 0, code: 'playbook_invalid' });
    const nobody = 2_000_000_000;
    const noMember = await call(stranger, 'POST', `${own()}/playbooks`, draft([{ type: 'notify', to: [nobody], channels: ['inbox'] }]));
    const theirMember = await call(
      stranger,
      'POST',
      `${own()}/playbooks`,
      draft([{ type: 'notify', to: [sales.id], channels: ['inbox'] }]),
    );
    expect({ ...theirMember.body, msg: theirMember.body.msg?.replace(String(sales.id), 'N') }).toEqual({
      ...noMember.body,
      msg: noMember.body.msg?.replace(String(nobody), 'N'),
    });
    // This project's paths: not a member, refused before anything is read; a Sales member: not a manager.
    for (const [method, path, body] of [
      ['GET', `${app()}/playbook/${playbookId}`, undefined],
      ['PUT', `${app()}/playbook/${playbookId}`, { enabled: false }],
      ['POST', `${app()}/playbook-dry-runs`, { playbookId }],
    ] as const) {
      expect((await call(stranger, method, path, body)).status, path).toBe(403);
      expect((await call(sales, method, path, body)).status, path).toBe(403);
    }
    expect([await count('playbooks'), await countOther()]).toEqual(before);
    expect((await call(owner, 'GET', `${app()}/playbook/${playbookId}`)).body.data).toMatchObject({ enabled: true });
  });

  it("a webhook at the server's own network is refused when saved", async () => {
    const before = await count('playbooks');
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.7/hook',
      'http://0x7f000001/hook',
      'file:///etc/passwd',
      'gopher://example.com/',
      'not a url',
    ]) {
      const res = await call(owner, 'POST', `${app()}/playbooks`, draft([{ type: 'webhook', url }]));
      expect(res.status, url).toBe(200);
      expect(res.body.status, url).toBe(0);
      expect(['url_invalid', 'playbook_invalid'], url).toContain(res.body.code);
      const changed = await call(owner, 'PUT', `${app()}/playbook/${playbookId}`, { actions: [{ type: 'webhook', url }] });
      expect(changed.body.status, url).toBe(0);
    }
    expect(await count('playbooks')).toBe(before);
    const kept = (await call(owner, 'GET', `${app()}/playbook/${playbookId}`)).body.data as { actions: { type: string }[] };
    expect(kept.actions.map((a) => a.type)).toEqual(['enroll']);
  });

  it('oversized and hostile bodies are refused in the documented shapes, never a 5xx, nothing written', async () => {
    const before = await count('playbooks');
    for (const path of [`${app()}/playbooks`, `${app()}/playbook/${playbookId}`, `${app()}/playbook-dry-runs`]) {
      const huge = await fetch(`${t.server.base}${path}`, {
        method: path.includes('/playbook/') ? 'PUT' : 'POST',
        headers: { ...owner.auth, ...json },
        body: JSON.stringify({ name: 'x'.repeat(200_000) }),
      });
      expect(huge.status, path).toBe(413);
    }
    const cases: unknown[] = [
      { ...draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1 }]), name: 'x'.repeat(101) },
      draft(Array.from({ length: 11 }, () => ({ type: 'set_field', key: 'k', value: 'v' }))),
      draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1e12 }]),
      draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1.5 }]),
      draft([{ type: 'set_field', key: 'k', value: 'v'.repeat(256) }]),
      draft([{ type: 'notify', to: Array.from({ length: 21 }, (_, i) => i + 1), channels: ['inbox'] }]),
      draft([{ type: 'enroll', sequenceId: '../../etc/passwd' }]),
      draft([{ type: 'enroll', sequenceId: { $ne: null } }]),
      draft([
        { type: 'webhook', url: 'https://example.com/a' },
        { type: 'webhook', url: 'https://example.com/b' },
      ]),
      draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1 }], { kind: 'deck_read', conditions: { readShare: -1 } }),
      draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1 }], {
        kind: 'site_visit',
        conditions: { url: 'u'.repeat(2001) },
      }),
      draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1 }], {
        kind: 'deck_read',
        conditions: { repeats: { count: 1e9, withinDays: 1 } },
      }),
      {
        ...draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1 }]),
        filters: { ownerIds: Array.from({ length: 101 }, (_, i) => i) },
      },
      { ...draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1 }]), limit: { kind: 'per_period', days: -3 } },
      { ...draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1 }]), name: 'nul \u0000' },
      { name: 'x', trigger: 'form_submitted', actions: 'all of them' },
      '{"name":',
      '[]',
      'null',
    ];
    for (const body of cases) {
      const label = JSON.stringify(body).slice(0, 80);
      const made = await call(owner, 'POST', `${app()}/playbooks`, body);
      expect(made.status, label).toBe(200);
      expect(made.body.status, label).toBe(0);
      const dry = await call(owner, 'POST', `${app()}/playbook-dry-runs`, body);
      expect(dry.status, label).toBe(200);
      expect(dry.body.status, label).toBe(0);
    }
    for (const q of ['?count=1000000', '?start_index=not-a-number', '?count=-5', '?start_index=99999999999999999999999'])
      expect((await call(owner, 'GET', `${app()}/playbook/${playbookId}/runs${q}`)).status, q).toBeLessThan(500);
    expect(await count('playbooks')).toBe(before);
  });

  it('a storm of dry runs leaves another member answered within a second', async () => {
    const body = draft([{ type: 'create_task', title: 'x', kind: 'call', dueInHours: 1 }], {
      kind: 'score_above',
      conditions: { score: 1 },
    });
    const { result, worstMs } = await underAttack(
      t.server,
      async () => {
        const answers = await Promise.all(Array.from({ length: 50 }, () => call(owner, 'POST', `${app()}/playbook-dry-runs`, body)));
        return answers.filter((a) => a.status === 429 || a.body.status === 1).length;
      },
      () => fetch(`${t.server.base}${app()}/sequences`, { headers: sales.auth }),
    );
    expect(t.server.alive()).toBe(true);
    expect(result).toBe(50);
    expect(worstMs).toBeLessThan(1000);
    expect(await count('playbook_runs')).toBe(0);
  });
});
