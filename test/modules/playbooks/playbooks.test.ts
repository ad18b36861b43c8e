// lanes: sqlite postgres
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ChatReceiver, startChatReceivers } from '../../helpers/chat-receivers.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { DAY, HOUR, type HistoryProject, addCustomers, ago, event, historyProject, ingest } from '../../helpers/histories.ts';
import { BeaconReader, type LinkData, madeLink, renderedFile } from '../../helpers/links.ts';
import { type RunningRelay, startRelay } from '../../helpers/relay.ts';

/**
 * Playbooks through HTTP, the server's clock moved by the test: made, checked and audited; the playbook
 * "read at least 60% of Pricing twice within 3 days → a task, an alert in the inbox and on a DingTalk
 * robot, and an enrolment in a sequence" acting once per customer on readings recorded through the
 * viewer's beacons (the robot checks the signature as DingTalk does); a second evaluator and a second
 * pass doing nothing twice; the dry run; an action that fails undone alone; runs following a merge and
 * erased; a group move and a field set; a signed webhook call.
 */
const t = useTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
const SECRETS = { slackPath: 'XXpbXXslackXX', wecomKey: 'wecom-pb', dingtalk: 'SECding-playbook', feishu: 'feishu-pb' };
let p: HistoryProject;
const links: Record<string, LinkData> = {};
let robots: Awaited<ReturnType<typeof startChatReceivers>>;
let relay: RunningRelay;
let now = Date.now();
let fileId = '';
let sequenceId = '';

const pass = () => t.server.services.playbooks.evaluator.pass();
const useClock = () => vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);
const base = () => `/api/v1.7/app/${p.appId}`;

/** A reader on a phone of a link, a heartbeat every 10 s of the server's clock (`now`). */
const reader = (share: string) => new BeaconReader(t.server, share, (ms) => (now += ms));

/** A customer reads pages of their link, then leaves. */
async function reads(customer: string, pages: number[]): Promise<void> {
  const r = reader((links[customer] as LinkData).shareToken);
  await r.open();
  for (const page of pages) await r.read(page, 20);
  await r.leave(pages[pages.length - 1] ?? 1);
}

const pricing = () => ({
  name: 'Pricing read twice',
  trigger: { kind: 'deck_read', conditions: { fileId, readShare: 60, repeats: { count: 2, withinDays: 3 } } },
  actions: [
    { type: 'create_task', title: 'Call about pricing', kind: 'call', dueInHours: 4 },
    { type: 'notify', to: 'owner', channels: ['inbox', 'chat'] },
    { type: 'enroll', sequenceId },
  ],
});

beforeAll(async () => {
  robots = await startChatReceivers(SECRETS);
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'pb-ada', owner: p.sales.id, name: 'Ada' },
    { id: 'pb-bob', owner: p.sales.id, name: 'Bob' },
    { id: 'pb-cy', owner: p.sales2.id, name: 'Cy' },
  ]);
  fileId = await renderedFile(t.server, p, p.sales.token);
  for (const c of ['pb-ada', 'pb-bob', 'pb-cy'])
    links[c] = await madeLink(t.server, p.appId, p.master.token, { name: 'Pricing', file_id: fileId, customer_id: c });
  const seq = await t.server.api.post(
    `${base()}/sequences`,
    {
      name: 'Pricing follow-up',
      steps: [{ type: 'call', waitDays: 1, title: 'Call about the quote', note: 'They read the pricing twice' }],
    },
    { token: p.master.token },
  );
  expect(seq.json().status, seq.body).toBe(1);
  sequenceId = seq.json().data.id;
  const ch = await t.server.api.post(
    `${base()}/notification-channels`,
    { kind: 'dingtalk', url: robots.dingtalk.url, secret: SECRETS.dingtalk, events: 'deck_read', locale: 'en-US' },
    { token: p.master.token },
  );
  expect(ch.json().status, ch.body).toBe(1);
  // The journey happens over the last week (its clock moved by the test); the robot, checking the
  // signature's time against its own clock, is posted to afterwards, on the real clock.
  now = t.server.ctx.clock.dayEnd(Date.now() - 8 * DAY) + HOUR;
}, 120_000);

afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  await relay?.stop();
  await robots?.close();
});

describe('making playbooks', () => {
  it('refuses what is not a playbook, saying what is wrong, and writes nothing', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...pricing(), name: '' }, 'playbook_invalid', /name is required/],
      [{ ...pricing(), trigger: { kind: 'nothing_known' } }, 'playbook_invalid', /trigger.kind/],
      [{ ...pricing(), trigger: { kind: 'deck_read', conditions: { readShare: 101 } } }, 'playbook_invalid', /readShare/],
      [{ ...pricing(), trigger: { kind: 'form_submitted', conditions: { readShare: 50 } } }, 'playbook_invalid', /conditions of deck_read/],
      [{ ...pricing(), trigger: { kind: 'score_above', conditions: {} } }, 'playbook_invalid', /score is required/],
      [{ ...pricing(), actions: [] }, 'playbook_invalid', /at least one action/],
      [{ ...pricing(), actions: [{ type: 'explode' }] }, 'playbook_invalid', /actions\[0\].type/],
      [{ ...pricing(), actions: [{ type: 'move_to_group', groupId: 'no-such-group' }] }, 'playbook_invalid', /no such group/],
      [{ ...pricing(), trigger: { kind: 'deck_read', conditions: { fileId: 'no-such-file' } } }, 'playbook_invalid', /no such file/],
      [{ ...pricing(), actions: [{ type: 'enroll', sequenceId: 'no-such-sequence' }] }, 'playbook_invalid', /no such sequence/],
      [{ ...pricing(), limit: { kind: 'per_period' } }, 'playbook_invalid', /limit.days/],
      [{ ...pricing(), actions: [{ type: 'notify', to: [p.outsider.id] }] }, 'playbook_invalid', /not an active member/],
    ];
    for (const [body, code, msg] of cases) {
      const res = await t.server.api.post(`${base()}/playbooks`, body, { token: p.master.token });
      expect(res.statusCode).toBe(200);
      expect(res.json(), JSON.stringify(body)).toMatchObject({ status: 0, code });
      expect(res.json().msg).toMatch(msg);
    }
    const list = await t.server.api.get(`${base()}/playbooks`, { token: p.master.token });
    expect(list.json().data).toEqual([]);
  });

  it('is for the Master and Admins: a Sales member is refused', async () => {
    const res = await t.server.api.post(`${base()}/playbooks`, pricing(), { token: p.sales.token });
    expect(res.statusCode).toBe(403);
  });

  it('makes, reads, changes and archives one', async () => {
    const made = await t.server.api.post(
      `${base()}/playbooks`,
      { ...pricing(), name: 'Temp', limit: { kind: 'per_period', days: 7 } },
      { token: p.admin.token },
    );
    expect(made.json(), made.body).toMatchObject({
      status: 1,
      data: { name: 'Temp', enabled: true, limit: { kind: 'per_period', days: 7 } },
    });
    const id = made.json().data.id as string;
    expect(made.json().data.secret).toMatch(/^[\w-]{20,}$/);
    const got = await t.server.api.get(`${base()}/playbook/${id}`, { token: p.master.token });
    expect(got.json().data.secret).toBeUndefined();
    expect(got.json().data.trigger).toEqual(pricing().trigger);
    const changed = await t.server.api.put(`${base()}/playbook/${id}`, { enabled: false, limit: 'every_time' }, { token: p.master.token });
    expect(changed.json().data).toMatchObject({ enabled: false, limit: { kind: 'every_time' }, name: 'Temp' });
    expect((await t.server.api.delete(`${base()}/playbook/${id}`, { token: p.master.token })).json()).toMatchObject({ status: 1 });
    const gone = await t.server.api.get(`${base()}/playbook/${id}`, { token: p.master.token });
    expect(gone.json()).toMatchObject({ status: 0, code: 'playbook_not_found' });
    // Each change in the audit log, written with it; a refused one leaves none.
    const log = await t.server.api.get(`${base()}/audit-log`, { token: p.master.token, query: { count: 100 } });
    const mine = (log.json().data as { action: string; targetId: string; svcUserId: string; detail: Record<string, unknown> }[]).filter(
      (e) => e.targetId === id,
    );
    expect(mine.map((e) => [e.action, e.svcUserId])).toEqual([
      ['playbook.remove', String(p.master.id)],
      ['playbook.edit', String(p.master.id)],
      ['playbook.create', String(p.admin.id)],
    ]);
    expect(mine[1]?.detail).toMatchObject({ changed: ['enabled', 'limit'], enabled: false, limit: 'every_time' });
    expect(mine[2]?.detail).toEqual({
      name: 'Temp',
      enabled: true,
      trigger: 'deck_read',
      actions: ['create_task', 'notify', 'enroll'],
      limit: 'per_period',
    });
    expect((log.json().data as { targetType: string }[]).filter((e) => e.targetType === 'playbook')).toHaveLength(3);
  });
});

describe('read at least 60% of Pricing twice within 3 days → a task and an alert on DingTalk', () => {
  let id = '';

  it('acts once per customer, on the second reading of 60% within 3 days', async () => {
    useClock();
    const made = await t.server.api.post(`${base()}/playbooks`, pricing(), { token: p.master.token });
    expect(made.json().status, made.body).toBe(1);
    id = made.json().data.id;
    await pass();
    // Ada: 2 of 3 pages (67%), then again the next day: the second reading acts.
    await reads('pb-ada', [1, 2]);
    await pass();
    expect((await t.server.api.get(`${base()}/playbook/${id}/runs`, { token: p.master.token })).json().data).toEqual([]);
    now += DAY;
    await reads('pb-ada', [1, 3]);
    // Bob: one page of three (33%) twice: not enough. Cy: 60% once, and again 4 days later: not within 3 days.
    await reads('pb-bob', [1]);
    await reads('pb-bob', [2]);
    await reads('pb-cy', [1, 2]);
    await pass();
    now += 4 * DAY;
    await reads('pb-cy', [2, 3]);
    // Ada a third time: once per customer.
    await reads('pb-ada', [1, 2, 3]);
    await pass();
    await pass();
    const runs = (await t.server.api.get(`${base()}/playbook/${id}/runs`, { token: p.master.token })).json().data as {
      customerId: string;
      actions: { type: string; ok: boolean; detail: Record<string, unknown> }[];
      lagMs: number;
    }[];
    expect(runs.map((r) => r.customerId)).toEqual(['pb-ada']);
    expect(runs[0]?.actions.map((a) => [a.type, a.ok])).toEqual([
      ['create_task', true],
      ['notify', true],
      ['enroll', true],
    ]);
    expect(runs[0]?.actions[1]?.detail).toEqual({ members: [p.sales.id], channels: 1 });
    expect(runs[0]?.actions[2]?.detail).toEqual({ result: 'enrolled' });
    // Enrolled once, in the sequence, sent by the customer's owner; the others not at all.
    for (const [customer, want] of [
      ['pb-ada', [[sequenceId, 'active', p.sales.id]]],
      ['pb-bob', []],
      ['pb-cy', []],
    ] as const) {
      const e = await t.server.api.get(`${base()}/customer/${customer}/enrollments`, { token: p.master.token });
      const list = e.json().data as { sequenceId: string; state: string; ownerId: number }[];
      expect(
        list.map((x) => [x.sequenceId, x.state, x.ownerId]),
        customer,
      ).toEqual(want);
    }
    const tasks = await t.server.api.get(`${base()}/tasks`, { token: p.sales.token, query: { customer_id: 'pb-ada' } });
    const mine = (tasks.json().data as { customerId: string; title: string; kind: string }[]).filter((x) => x.customerId === 'pb-ada');
    expect(mine.map((x) => [x.title, x.kind])).toEqual([['Call about pricing', 'call']]);
    const inbox = (await t.server.api.get('/api/v1.7/notifications', { token: p.sales.token, query: { count: 100 } })).json().data as {
      signal: string;
      title: string;
    }[];
    expect(inbox.filter((e) => e.signal === 'playbook').map((e) => e.title)).toEqual(['Pricing read twice: Ada']);
  });

  it('posts the alert on the DingTalk robot once, signed', async () => {
    relay = startRelay(t.server.ctx, { pollMs: 50 });
    const deadline = Date.now() + 30_000;
    while (robots.dingtalk.accepted.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const all: ChatReceiver[] = [robots.dingtalk];
    expect(all.map((r) => [r.accepted.length, r.refused])).toEqual([[1, 0]]);
    expect(JSON.stringify(robots.dingtalk.accepted[0])).toContain('Pricing read twice: Ada');
  });

  it('does nothing twice: another server built on the same database, and more passes', async () => {
    const { createServices } = await import('../../../src/services.ts');
    const other = createServices(t.server.ctx);
    await other.playbooks.evaluator.pass();
    await pass();
    const runs = (await t.server.api.get(`${base()}/playbook/${id}/runs`, { token: p.master.token })).json().data as unknown[];
    expect(runs).toHaveLength(1);
  });

  it('dry-runs: the last 30 days, doing nothing', async () => {
    useClock();
    const dry = await t.server.api.post(`${base()}/playbook-dry-runs`, { playbookId: id }, { token: p.master.token });
    expect(dry.json(), dry.body).toMatchObject({ status: 1, data: { runs: 1, customers: 1 } });
    expect(dry.json().data.listed.map((r: { customerId: string }) => r.customerId)).toEqual(['pb-ada']);
    // A draft for every reading of a third: Bob too; Cy's two readings stand 4 days apart (within 5: both).
    const draft = {
      ...pricing(),
      trigger: { kind: 'deck_read', conditions: { fileId, readShare: 30, repeats: { count: 2, withinDays: 5 } } },
    };
    const wide = await t.server.api.post(`${base()}/playbook-dry-runs`, draft, { token: p.master.token });
    expect(
      wide
        .json()
        .data.listed.map((r: { customerId: string }) => r.customerId)
        .sort(),
    ).toEqual(['pb-ada', 'pb-bob', 'pb-cy']);
    const runs = (await t.server.api.get(`${base()}/playbook/${id}/runs`, { token: p.master.token })).json().data as unknown[];
    expect(runs).toHaveLength(1);
  });
});

describe('an action that fails', () => {
  let formPlaybook = '';

  it('is recorded with its error code, undone alone; the actions after it still happen', async () => {
    const made = await t.server.api.post(
      `${base()}/playbooks`,
      {
        name: 'Form filled in',
        trigger: { kind: 'form_submitted' },
        actions: [
          { type: 'create_task', title: 'Before', kind: 'todo', dueInHours: 1 },
          { type: 'set_field', key: 'email', value: 'not an address' },
          { type: 'exit_sequence', sequenceId: null },
          { type: 'create_task', title: 'After', kind: 'todo', dueInHours: 1 },
        ],
        limit: 'every_time',
      },
      { token: p.master.token },
    );
    expect(made.json().status, made.body).toBe(1);
    formPlaybook = made.json().data.id as string;
    await pass();
    const res = await ingest(t.server, p, [
      event('BehaviourLog', 'pb-form-1', { customerId: 'pb-bob', action: 'submit_form', when: ago(0) }),
    ]);
    expect(res.json().status, res.body).toBe(1);
    await pass();
    const runs = (await t.server.api.get(`${base()}/playbook/${made.json().data.id}/runs`, { token: p.master.token })).json().data as {
      customerId: string;
      actions: { type: string; ok: boolean; error?: string }[];
    }[];
    expect(runs.map((r) => r.customerId)).toEqual(['pb-bob']);
    expect(runs[0]?.actions.map((a) => [a.type, a.ok])).toEqual([
      ['create_task', true],
      ['set_field', false],
      ['exit_sequence', true],
      ['create_task', true],
    ]);
    expect(runs[0]?.actions[1]?.error).toMatch(/^[a-z_]+$/);
    const tasks = await t.server.api.get(`${base()}/tasks`, { token: p.master.token, query: { customer_id: 'pb-bob' } });
    expect((tasks.json().data as { title: string }[]).map((x) => x.title).sort()).toEqual(['After', 'Before']);
    const bob = await t.server.api.get(`/api/v1.7/customer/pb-bob/detail`, { token: p.master.token });
    expect(bob.json().data.email ?? null).not.toBe('not an address');
  });

  it('follows its customer: moved to the one a merge kept, erased with them', async () => {
    const runsOf = async () =>
      (
        (await t.server.api.get(`${base()}/playbook/${formPlaybook}/runs`, { token: p.master.token })).json().data as {
          customerId: string;
        }[]
      ).map((r) => r.customerId);
    await addCustomers(t.server, p, [{ id: 'pb-keep', owner: p.sales.id, name: 'Bob too' }]);
    const merged = await t.server.api.post(
      `${base()}/member/${p.sales.id}/customer/merge`,
      { main_customer_id: 'pb-keep', merge_user_ids: 'pb-bob' },
      { token: p.sales.token, form: true },
    );
    expect(merged.json().status, merged.body).toBe(1);
    await t.server.services.merges.runPending(0);
    expect(await runsOf()).toEqual(['pb-keep']);
    const erased = await t.server.api.post(`${base()}/customer/pb-keep/erase`, undefined, { token: p.master.token });
    expect(erased.json()).toMatchObject({ status: 1, data: { erased: { playbook_runs: 1 } } });
    expect(await runsOf()).toEqual([]);
  });
});

describe('a group move and a field set', () => {
  it("happen with the author's rights, as the owner's edit would, filtered by the customer's owner", async () => {
    const group = (await t.server.api.post(`${base()}/customer-groups`, { name: 'Engaged' }, { token: p.sales.token })).json().data as {
      id: string;
    };
    const made = await t.server.api.post(
      `${base()}/playbooks`,
      {
        name: 'Engaged visitors',
        trigger: { kind: 'site_visit', conditions: { url: '/pricing' } },
        filters: { ownerIds: [p.sales.id] },
        actions: [
          { type: 'move_to_group', groupId: group.id },
          { type: 'set_field', key: 'company', value: 'Acme' },
        ],
      },
      { token: p.master.token },
    );
    expect(made.json().status, made.body).toBe(1);
    const visit = (id: string, customerId: string, url: string) =>
      event('BehaviourLog', id, {
        customerId,
        action: 'web_page_view',
        when: ago(0),
        content: JSON.stringify({ web_access_log_id: `w-${id}`, url, title: 'Pricing' }),
      });
    await pass();
    // Ada visits the pricing page; Cy (another member's customer) too; Ada's other page does nothing.
    const res = await ingest(t.server, p, [
      visit('pb-visit-1', 'pb-ada', 'https://example.com/about'),
      visit('pb-visit-2', 'pb-ada', 'https://example.com/Pricing?plan=pro'),
      visit('pb-visit-3', 'pb-cy', 'https://example.com/pricing'),
    ]);
    expect(res.json().status, res.body).toBe(1);
    await pass();
    const runs = (await t.server.api.get(`${base()}/playbook/${made.json().data.id}/runs`, { token: p.master.token })).json().data as {
      customerId: string;
      actions: { type: string; ok: boolean }[];
    }[];
    expect(runs.map((r) => [r.customerId, r.actions.map((a) => a.ok)])).toEqual([['pb-ada', [true, true]]]);
    const ada = (await t.server.api.get('/api/v1.7/customer/pb-ada/detail', { token: p.master.token })).json().data;
    expect([ada.groupId ?? ada.group_id, ada.company]).toEqual([group.id, 'Acme']);
    const cy = (await t.server.api.get('/api/v1.7/customer/pb-cy/detail', { token: p.master.token })).json().data;
    expect(cy.company ?? null).not.toBe('Acme');
  });
});

describe('a webhook action', () => {
  it('is called after the run, signed with the playbook secret, once', async () => {
    const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as { port: number }).port;
    try {
      const made = await t.server.api.post(
        `${base()}/playbooks`,
        { name: 'Tell the CRM', trigger: { kind: 'mail_clicked' }, actions: [{ type: 'webhook', url: `http://127.0.0.1:${port}/hook` }] },
        { token: p.master.token },
      );
      expect(made.json().status, made.body).toBe(1);
      const { id, secret } = made.json().data as { id: string; secret: string };
      await pass();
      const res = await ingest(t.server, p, [
        event('BehaviourLog', 'pb-click-1', {
          customerId: 'pb-cy',
          action: 'mail_click',
          when: ago(0),
          content: JSON.stringify({ url: 'https://example.com/x' }),
        }),
      ]);
      expect(res.json().status, res.body).toBe(1);
      await pass();
      await t.server.services.playbooks.webhooks.sendDue();
      await t.server.services.playbooks.webhooks.sendDue();
      expect(got).toHaveLength(1);
      const call = got[0] as { headers: http.IncomingHttpHeaders; body: string };
      const [tPart, vPart] = String(call.headers['x-rapport-signature']).split(',');
      const ts = tPart?.slice(2) ?? '';
      expect(vPart?.slice(3)).toBe(createHmac('sha256', secret).update(`${ts}.${call.body}`).digest('hex'));
      expect(JSON.parse(call.body)).toMatchObject({ type: 'playbook.run', appId: p.appId, playbookId: id, run: { customerId: 'pb-cy' } });
      const runs = (await t.server.api.get(`${base()}/playbook/${id}/runs`, { token: p.master.token })).json().data as {
        webhook: unknown;
      }[];
      expect(runs.map((r) => r.webhook)).toEqual([{ status: 'sent', attempts: 1, error: null }]);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
