// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSequenceMail } from '../../../src/modules/campaigns/sequence-mail.service.ts';
import { customerVisibilityReadModel } from '../../../src/modules/customers/service.ts';
import { createOwnLinks } from '../../../src/modules/links/own-links.service.ts';
import { createEnrollmentsRepository } from '../../../src/modules/sequences/enrollments.repository.ts';
import type { SequenceJumps } from '../../../src/modules/sequences/jumps.service.ts';
import { createLifecycle } from '../../../src/modules/sequences/lifecycle.ts';
import { createSequenceRunner } from '../../../src/modules/sequences/runner.service.ts';
import { createSequenceSettings } from '../../../src/modules/sequences/settings.service.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { Browser, type LinkData, madeLink, renderedFile } from '../../helpers/links.ts';
import { type Delivered, startMailbox } from '../../helpers/mailbox.ts';
import { freePort } from '../../helpers/process.ts';

/**
 * The sequences runner through HTTP, with the server's clock moved by the tests (no test waits for a
 * business day) and a real SMTP server in-process: a step's mail goes out in the send window of the
 * customer's zone and not outside it, through the campaigns' queue (tracked, RFC 8058 unsubscribe,
 * the customer's own link in the merge fields); reading the deck to its end jumps to the call task;
 * the unsubscribe link of the mail ends the enrolment; the daily cap holds mail for the next window
 * day; a paused enrolment does not run.
 */
const BASE = 'https://rapport.example';
const smtpPort = await freePort();
const t = useTestServer({
  PUBLIC_BASE_URL: BASE,
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  SMTP_FROM: 'Sequences <mail@rapport.example>',
  MAIL_RATE_PER_SECOND: '1000',
  MAIL_MACHINE_OPEN_SECONDS: '0',
});

const ZONE = 'America/New_York';
let box: Awaited<ReturnType<typeof startMailbox>>;
let p: HistoryProject;
let deck: LinkData;
/** The server's clock, moved by the tests. */
let now = 0;
const at = (local: string) => t.server.ctx.clock.parse(`${local.replace(' ', 'T')}-05:00`) as number;

beforeAll(async () => {
  box = await startMailbox(smtpPort);
  // The whole file runs on the server's clock moved by the tests, from a Saturday morning in New York
  // (its members' tokens, made now, last a week: the tests stay within it).
  now = at('2026-12-05 08:00:00');
  vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);
  p = await historyProject(t.server);
  const fileId = await renderedFile(t.server, p, p.sales.token);
  deck = await madeLink(t.server, p.appId, p.sales.token, { name: 'Pricing', file_id: fileId });
  const res = await api('put', '/sequence-settings', p.master.token, {
    timeZone: ZONE,
    windowStart: '09:00',
    windowEnd: '17:00',
    days: [1, 2, 3, 4, 5],
    dailyCap: 200,
  });
  expect(res.status, JSON.stringify(res)).toBe(1);
  // The feed's readers start at its end the first time they look: from here on.
  await t.server.services.sequences.feed.pass();
  await t.server.services.sequences.runner.pass();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await box.close();
});
/** Moves the server's clock on (never back). */
const useClock = (to: number) => {
  expect(to).toBeGreaterThanOrEqual(now);
  now = to;
};

async function api(method: 'get' | 'post' | 'put', path: string, token: string, body?: unknown) {
  const url = `/api/v1.7/app/${p.appId}${path}`;
  const res = method === 'get' ? await t.server.api.get(url, { token }) : await t.server.api[method](url, body, { token });
  return res.json() as { status: number; code?: number; msg?: string; data: Record<string, unknown> & { [k: string]: unknown } };
}

let seq = 0;
async function customers(n: number, owner: number): Promise<string[]> {
  const stamp = Date.now();
  const rows = Array.from({ length: n }, () => {
    seq += 1;
    return {
      id: `seqrun-${seq}`,
      app_id: p.appId,
      owner_id: owner,
      name: `Person ${seq}`,
      company: 'Acme',
      email: `person${seq}@example.com`,
      email_lower: `person${seq}@example.com`,
      status: 1,
      is_new: 1,
      created_at: stamp,
      updated_at: stamp,
    };
  });
  await t.server.ctx.database.db.insertInto('customers').values(rows).execute();
  return rows.map((r) => r.id);
}

const THREE_STEPS = [
  { type: 'email', waitDays: 0, title: 'Hello', html: '<p>Hi {{name}}, your copy: <a href="{{own_link}}">Pricing</a>. {{owner_name}}</p>' },
  { type: 'email', waitDays: 2, title: 'Following up', html: '<p>Any questions, {{name}}? <a href="https://acme.example/faq">FAQ</a></p>' },
  { type: 'call', waitDays: 1, title: 'Call about pricing', note: 'Ask about the pricing deck' },
];

async function sequence(body: Record<string, unknown>): Promise<string> {
  const res = await api('post', '/sequences', p.sales.token, body);
  expect(res.status, JSON.stringify(res)).toBe(1);
  return res.data.id as string;
}

/** Enrols customers through the bulk job, run to its end. */
async function enrol(sequenceId: string, ids: string[], token = p.sales.token): Promise<void> {
  const res = await api('post', `/sequence/${sequenceId}/enrollments`, token, { customer_ids: ids });
  expect(res.status, JSON.stringify(res)).toBe(1);
  // The job runs in this process (started by the call); followed as the console does.
  for (let i = 0; ; i += 1) {
    const job = await api('get', `/customers/bulk/${res.data.id as string}`, token);
    if (job.data.status === 'done' || i > 500) {
      expect(job.data, JSON.stringify(job.data)).toMatchObject({ status: 'done', done: ids.length });
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Enrollment {
  id: string;
  customerId: string;
  state: string;
  exitReason: string | null;
  step: number;
  dueAt: string | null;
  ownLinkId: string | null;
}
async function enrolmentOf(customerId: string, token = p.sales.token): Promise<Enrollment> {
  const res = await api('get', `/customer/${customerId}/enrollments`, token);
  expect(res.status, JSON.stringify(res)).toBe(1);
  const list = res.data as unknown as Enrollment[];
  expect(list).toHaveLength(1);
  return list[0] as Enrollment;
}

const runner = () => t.server.services.sequences.runner.drain();
const send = () => t.server.services.campaignSender.drain();
const mailsTo = (email: string): Delivered[] => box.inbox.filter((m) => m.to.includes(email));
/** A header's line as the mail carried it. */
const headerLine = (d: Delivered | undefined, name: string) =>
  d?.mail.headerLines.find((h) => h.key === name)?.line.replace(/\r?\n\s+/g, ' ');

async function stepRuns(enrollmentId: string) {
  return t.server.ctx.database.db
    .selectFrom('sequence_step_runs')
    .selectAll()
    .where('app_id', '=', p.appId)
    .where('enrollment_id', '=', enrollmentId)
    .orderBy('step')
    .execute();
}

describe('a three-step sequence (e-mail, wait two business days, e-mail, call)', () => {
  let sequenceId = '';
  let ada = '';
  const adaMail = () => `person${ada.slice('seqrun-'.length)}@example.com`;

  it('sends the first mail in the send window of the customer, not outside it', async () => {
    // Saturday morning in New York: enrolled, nothing goes out before Monday 09:00.
    useClock(at('2026-12-05 10:00:00'));
    sequenceId = await sequence({
      name: 'Pricing follow-up',
      deckLinkId: deck.id,
      jump: { readShare: 100, toStep: 2 },
      steps: THREE_STEPS,
    });
    ada = (await customers(1, p.sales.id))[0] as string;
    await enrol(sequenceId, [ada]);
    await runner();
    await send();
    expect(mailsTo(adaMail())).toHaveLength(0);
    expect(await enrolmentOf(ada)).toMatchObject({ state: 'active', step: 0, dueAt: t.server.ctx.clock.format(at('2026-12-07 09:00:00')) });
    // Monday 08:59: still outside.
    useClock(at('2026-12-07 08:59:00'));
    await runner();
    await send();
    expect(mailsTo(adaMail())).toHaveLength(0);
    // 09:00: the first step runs, its mail is sent through the campaigns' queue.
    useClock(at('2026-12-07 09:00:00'));
    await runner();
    await send();
    const [mail] = mailsTo(adaMail());
    expect(mail?.mail.subject).toBe('Hello');
    const e = await enrolmentOf(ada);
    expect(e).toMatchObject({ state: 'active', step: 1 });
    // Its own link: a share link of the deck directed at the customer, in the merge values.
    expect(e.ownLinkId).toBeTruthy();
    const html = String(mail?.mail.html);
    expect(html).toContain(`${BASE}/l/`);
    expect(html).toContain('Hi Person');
    expect(headerLine(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(headerLine(mail, 'list-unsubscribe')).toMatch(new RegExp(`^List-Unsubscribe: <${BASE}/m/u/[^>]+>$`));
    const runs = await stepRuns(e.id);
    expect(runs).toMatchObject([{ step: 0, kind: 'email', outcome: 'queued' }]);
    expect(runs[0]?.mail_id).toBeTruthy();
    // A second pass runs nothing more: the next step waits two business days (Wednesday 09:00).
    useClock(at('2026-12-08 09:30:00'));
    await runner();
    await send();
    expect(mailsTo(adaMail())).toHaveLength(1);
    expect(await enrolmentOf(ada)).toMatchObject({ step: 1, dueAt: t.server.ctx.clock.format(at('2026-12-09 09:00:00')) });
  });

  it('skips to the call task when the customer reads the deck to its end (through the viewer)', async () => {
    const e = await enrolmentOf(ada);
    const link = await t.server.ctx.database.db
      .selectFrom('links')
      .select(['share_token', 'customer_id', 'is_directional'])
      .where('app_id', '=', p.appId)
      .where('id', '=', e.ownLinkId as string)
      .executeTakeFirstOrThrow();
    expect(link).toMatchObject({ customer_id: ada, is_directional: 1 });
    // The link the first mail gave her.
    expect(String(mailsTo(adaMail())[0]?.mail.html)).toContain(`${BASE}/l/${link.share_token}`);
    // Tuesday 10:00: Ada reads her link's three pages.
    useClock(at('2026-12-08 10:00:00'));
    const b = new Browser(t.server);
    const token = (await b.open(link.share_token)).viewToken as string;
    let n = 0;
    const beacon = async (body: Record<string, unknown>) => {
      n += 1;
      const res = await b.beacon(link.share_token, { ...body, seq: n, token });
      expect(res.statusCode, res.body).toBe(200);
    };
    await beacon({ type: 'open', page: 1 });
    // Two pages of three: not yet the jump's 100 %.
    await beacon({ type: 'page', page: 2 });
    await runner();
    expect(await enrolmentOf(ada)).toMatchObject({ step: 1 });
    await beacon({ type: 'page', page: 3 });
    await runner();
    await send();
    // The second e-mail is skipped (jumped), the call is a task of the sending member, due now.
    const after = await enrolmentOf(ada);
    expect(after).toMatchObject({ state: 'finished', step: 3 });
    const runs = await stepRuns(after.id);
    expect(runs.map((r) => [r.step, r.outcome, r.detail])).toEqual([
      [0, 'queued', null],
      [1, 'skipped', 'jumped'],
      [2, 'task', null],
    ]);
    expect(mailsTo(adaMail())).toHaveLength(1);
    const tasks = await t.server.api.get(`/api/v1.7/app/${p.appId}/tasks`, { token: p.sales.token, query: { customer_id: ada } });
    const list = (tasks.json() as { data: { id: string; kind: string; title: string; assigneeId: string; dueAt: string }[] }).data;
    const call = list.find((x) => x.id === runs[2]?.task_id);
    expect(call).toMatchObject({
      kind: 'call',
      title: 'Call about pricing',
      assigneeId: p.sales.id,
      dueAt: t.server.ctx.clock.format(now),
    });
    // The events out: a step event per step, the finish.
    const events = await t.server.ctx.database.db
      .selectFrom('outbox')
      .select(['event_type', 'body'])
      .where('app_id', '=', p.appId)
      .where('domain_type', '=', 'Enrollment')
      .where('domain_id', '=', after.id)
      .execute();
    const types = events.map((x) => x.event_type);
    expect(types.filter((x) => x === 'step')).toHaveLength(3);
    expect(types).toContain('finished');
  });
});

describe('exits, the cap, pauses', () => {
  const TWO_MAILS = [
    { type: 'email', waitDays: 0, title: 'First', html: '<p>One</p>' },
    { type: 'email', waitDays: 1, title: 'Second', html: '<p>Two</p>' },
  ];
  const mailOf = (id: string) => `person${id.slice('seqrun-'.length)}@example.com`;

  it('exits on unsubscribe: the one-click POST of the mail it got', async () => {
    useClock(at('2026-12-08 11:00:00'));
    const sequenceId = await sequence({ name: 'Unsubscribe', steps: TWO_MAILS });
    const [bob] = await customers(1, p.sales.id);
    await enrol(sequenceId, [bob as string]);
    await runner();
    await send();
    const [mail] = mailsTo(mailOf(bob as string));
    const target = /<([^>]+)>/.exec(headerLine(mail, 'list-unsubscribe') ?? '')?.[1] as string;
    const res = await t.server.app.inject({
      method: 'POST',
      url: new URL(target).pathname,
      payload: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBeLessThan(300);
    await t.server.services.sequences.feed.pass();
    expect(await enrolmentOf(bob as string)).toMatchObject({ state: 'exited', exitReason: 'unsubscribed' });
    useClock(at('2026-12-10 10:00:00'));
    await runner();
    await send();
    expect(mailsTo(mailOf(bob as string))).toHaveLength(1);
  });

  it("holds a member's mail over the daily cap for the next window day", async () => {
    useClock(at('2026-12-10 11:00:00')); // a Thursday
    expect((await api('put', '/sequence-settings', p.master.token, { dailyCap: 2 })).status).toBe(1);
    try {
      const sequenceId = await sequence({ name: 'Capped', steps: TWO_MAILS.slice(0, 1) });
      const ids = await customers(3, p.sales2.id);
      await enrol(sequenceId, ids, p.sales2.token);
      await runner();
      await send();
      const sentTo = ids.filter((id) => mailsTo(mailOf(id)).length === 1);
      expect(sentTo).toHaveLength(2);
      const waiting = ids.find((id) => !sentTo.includes(id)) as string;
      // Friday 09:00 in New York: the next window day.
      expect(await enrolmentOf(waiting, p.sales2.token)).toMatchObject({
        state: 'active',
        step: 0,
        dueAt: t.server.ctx.clock.format(at('2026-12-11 09:00:00')),
      });
      useClock(at('2026-12-11 09:00:00'));
      await runner();
      await send();
      expect(mailsTo(mailOf(waiting))).toHaveLength(1);
    } finally {
      expect((await api('put', '/sequence-settings', p.master.token, { dailyCap: 200 })).status).toBe(1);
    }
  });

  it('does not run a paused enrolment; resumed, it runs', async () => {
    useClock(at('2026-12-11 10:00:00'));
    const sequenceId = await sequence({ name: 'Paused', steps: TWO_MAILS });
    const [cy] = await customers(1, p.sales.id);
    await enrol(sequenceId, [cy as string]);
    const e = await enrolmentOf(cy as string);
    expect((await api('post', `/enrollment/${e.id}/pause`, p.sales.token)).status).toBe(1);
    await runner();
    await send();
    expect(mailsTo(mailOf(cy as string))).toHaveLength(0);
    expect((await stepRuns(e.id)).length).toBe(0);
    expect((await api('post', `/enrollment/${e.id}/resume`, p.sales.token)).status).toBe(1);
    await runner();
    await send();
    expect(mailsTo(mailOf(cy as string))).toHaveLength(1);
  });
  it('two processes running at once queue no more than the daily cap between them', async () => {
    // Friday, a day the Admin has sent nothing on.
    const start = at('2026-12-11 11:00:00');
    useClock(start);
    expect((await api('put', '/sequence-settings', p.master.token, { dailyCap: 5 })).status).toBe(1);
    try {
      const sequenceId = await sequence({ name: 'Two processes', steps: TWO_MAILS.slice(0, 1) });
      const ids = await customers(12, p.admin.id);
      await enrol(sequenceId, ids, p.admin.token);
      // Half due now, half a second later: each process's runner claims its own half.
      const db = t.server.ctx.database.db;
      await db
        .updateTable('sequence_enrollments')
        .set({ due_at: start })
        .where('app_id', '=', p.appId)
        .where('customer_id', 'in', ids.slice(0, 6))
        .execute();
      await db
        .updateTable('sequence_enrollments')
        .set({ due_at: start + 1000 })
        .where('app_id', '=', p.appId)
        .where('customer_id', 'in', ids.slice(6))
        .execute();

      // Two runners as two server processes build them, each with its own worker name and slots.
      const ctx = t.server.ctx;
      const s = t.server.services;
      const settings = createSequenceSettings(ctx);
      const lifecycle = createLifecycle(ctx, createEnrollmentsRepository(ctx.database.features, customerVisibilityReadModel));
      let secondClaimed = (): void => undefined;
      const claimed = new Promise<void>((r) => (secondClaimed = r));
      let openSecond = (): void => undefined;
      const opened = new Promise<void>((r) => (openSecond = r));
      const build = (hooks: { beforePass: () => Promise<void>; claimed: () => Promise<void> }) =>
        createSequenceRunner(ctx, {
          settings: {
            forApp: async (appId: string) => {
              await hooks.claimed();
              return settings.forApp(appId);
            },
          },
          lifecycle,
          mail: createSequenceMail(ctx, { nudge: () => undefined }),
          tasks: s.tasks.tasks,
          ownLinks: createOwnLinks(ctx, s.projects.shareDomains.publicBase),
          customers: s.customers,
          accounts: s.accounts,
          jumps: {
            pass: async () => {
              await hooks.beforePass();
              return { full: false };
            },
          } as unknown as SequenceJumps,
        });
      // The first claims its half, then lets the second claim the other half half a second later; both then run.
      const first = build({
        beforePass: async () => undefined,
        claimed: async () => {
          useClock(start + 1000);
          openSecond();
          await claimed;
        },
      });
      const second = build({
        beforePass: () => opened,
        claimed: async () => secondClaimed(),
      });
      await Promise.all([first.pass(), second.pass()]);

      const runs = await db
        .selectFrom('sequence_step_runs')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('app_id', '=', p.appId)
        .where('sequence_id', '=', sequenceId)
        .where('outcome', '=', 'queued')
        .executeTakeFirstOrThrow();
      expect(Number(runs.n)).toBe(5);
      const waiting = await db
        .selectFrom('sequence_enrollments')
        .select(['due_at', 'step', 'claimed_by'])
        .where('app_id', '=', p.appId)
        .where('sequence_id', '=', sequenceId)
        .where('step', '=', 0)
        .execute();
      // The others wait for Monday's window, no lease left on them.
      expect(waiting).toHaveLength(7);
      for (const w of waiting)
        expect({ dueAt: Number(w.due_at), claimedBy: w.claimed_by }).toEqual({ dueAt: at('2026-12-14 09:00:00'), claimedBy: null });
    } finally {
      expect((await api('put', '/sequence-settings', p.master.token, { dailyCap: 200 })).status).toBe(1);
    }
  });
});
