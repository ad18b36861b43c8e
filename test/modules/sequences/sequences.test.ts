// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { writeEvents } from '../../../src/events/outbox.ts';
import { Relay } from '../../../src/events/relay.ts';
import { type HistoryProject, event, feedEvents, historyProject, ingest } from '../../helpers/histories.ts';
import { multipart } from '../../helpers/files.ts';
import { madeLink } from '../../helpers/links.ts';
import { useMailedTestServer } from '../../helpers/mailed-server.ts';

/**
 * Sequences through HTTP (docs/sequences.md): send settings, definitions and their versions,
 * enrolment as a bulk job (by ids and by the list's filters, a Sales member's own customers only),
 * pause/resume/exit, replies (the API and the inbound mail webhook), exits read from the feed
 * (unsubscribe and bounce through a real SMTP server, a form filled in), Enrollment events out.
 */
const BASE = 'https://rapport.example';
const t = await useMailedTestServer({
  PUBLIC_BASE_URL: BASE,
  SMTP_FROM: 'Sales <mail@rapport.example>',
  MAIL_RATE_PER_SECOND: '1000',
  IMPORT_LEASE_SECONDS: '1',
});
let p: HistoryProject;

interface Seq {
  id: string;
  name: string;
  version: number;
  steps: { type: string; waitDays: number; title: string; html: string | null; note: string | null }[];
  jump: { readShare: number; toStep: number } | null;
  deckLinkId: string | null;
  enrollments: Record<string, number>;
}
interface Enrollment {
  id: string;
  sequenceId: string;
  sequenceName: string | null;
  version: number;
  customerId: string;
  ownerId: number;
  state: string;
  exitReason: string | null;
  step: number;
}
interface Job {
  id: string;
  action: string;
  status: string;
  total: number;
  done: number;
  failed: number;
  sequenceId: string | null;
  failures: { byCode: Record<string, number> };
}
type Res<T> = { status: number; code?: string; msg?: string; data: T };

const api = (path: string) => `/api/v1.7/app/${p.appId}${path}`;
const STEPS = [
  { type: 'email', waitDays: 0, title: 'Hello {{name}}', html: '<p>Hi {{name}}, here is {{own_link}}</p>' },
  { type: 'call', waitDays: 2, title: 'Call them', note: 'Ask about the budget' },
  { type: 'task', waitDays: 3, title: 'Send the quote' },
];

async function post<T>(token: string, path: string, body?: unknown): Promise<Res<T>> {
  return (await t.server.api.post(api(path), body, { token })).json() as Res<T>;
}
async function get<T>(token: string, path: string, query: Record<string, string | number> = {}): Promise<Res<T>> {
  return (await t.server.api.get(api(path), { token, query })).json() as Res<T>;
}
async function made(token: string, body: Record<string, unknown> = {}): Promise<Seq> {
  const res = await post<Seq>(token, '/sequences', { name: 'Follow-up', steps: STEPS, ...body });
  expect(res, JSON.stringify(res)).toMatchObject({ status: 1 });
  return res.data;
}
async function settled(token: string, id: string): Promise<Job> {
  for (let i = 0; i < 600; i += 1) {
    const job = (await get<Job>(token, `/customers/bulk/${id}`)).data;
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('enrolment job did not settle');
}
async function enroll(token: string, sequenceId: string, body: Record<string, unknown>): Promise<Job> {
  const res = await post<Job>(token, `/sequence/${sequenceId}/enrollments`, body);
  expect(res, JSON.stringify(res)).toMatchObject({ status: 1, data: { action: 'enroll', status: 'queued', sequenceId } });
  return settled(token, res.data.id);
}
async function enrollmentsOf(customerId: string, token = p.master.token): Promise<Enrollment[]> {
  const res = await get<Enrollment[]>(token, `/customer/${customerId}/enrollments`);
  expect(res.status, JSON.stringify(res)).toBe(1);
  return res.data;
}
let n = 0;
/** Customers with e-mail addresses, as the customers module stores them. */
async function customers(owner: number, count: number, email = true): Promise<string[]> {
  const now = Date.now();
  const rows = Array.from({ length: count }, () => {
    n += 1;
    const address = email ? `seq${n}@example.com` : null;
    return {
      id: `seq-c-${n}`,
      app_id: p.appId,
      owner_id: owner,
      name: `Person ${n}`,
      email: address,
      email_lower: address,
      status: 1,
      is_new: 1,
      created_at: now,
      updated_at: now,
    };
  });
  await t.server.ctx.database.db.insertInto('customers').values(rows).execute();
  return rows.map((r) => r.id);
}
/** One pass of the sequences' feed reader (every server runs it as the job sequence-feed). */
const readFeed = () => t.server.services.sequences.feed.pass();

beforeAll(async () => {
  p = await historyProject(t.server);
  // The reader starts at the feed's end the first time.
  await readFeed();
});

describe('send settings', () => {
  it('Master and Admins read the defaults with the inbound webhook, and change them; bad values are refused', async () => {
    const first = await get<Record<string, unknown>>(p.admin.token, '/sequence-settings');
    expect(first).toMatchObject({
      status: 1,
      data: { timeZone: 'UTC', windowStart: '09:00', windowEnd: '17:00', days: [1, 2, 3, 4, 5], dailyCap: 200, replyAddress: null },
    });
    expect(String(first.data.inboundUrl)).toMatch(new RegExp(`^${BASE}/hooks/inbound-mail/[A-Za-z0-9_-]{32}$`));
    const put = (body: unknown, token = p.master.token) => t.server.api.put(api('/sequence-settings'), body, { token });
    const changed = (
      await put({
        timeZone: 'Asia/Shanghai',
        windowStart: '08:30',
        windowEnd: '18:00',
        days: [5, 1, 1],
        dailyCap: 50,
        replyAddress: 'Replies@Example.com',
      })
    ).json();
    expect(changed).toMatchObject({
      status: 1,
      data: {
        timeZone: 'Asia/Shanghai',
        windowStart: '08:30',
        windowEnd: '18:00',
        days: [1, 5],
        dailyCap: 50,
        replyAddress: 'Replies@Example.com',
        inboundUrl: first.data.inboundUrl,
      },
    });
    for (const [body, code] of [
      [{ timeZone: 'Mars/Base' }, 'time_zone_invalid'],
      [{ windowStart: '9am' }, 'windowStart_invalid'],
      [{ windowStart: '18:00', windowEnd: '09:00' }, 'windowEnd_invalid'],
      [{ days: [0] }, 'days_invalid'],
      [{ days: [] }, 'days_invalid'],
      [{ dailyCap: 0 }, 'dailyCap_invalid'],
      [{ replyAddress: 'nobody' }, 'replyAddress_invalid'],
    ] as const) {
      const res = await put(body);
      expect(res.statusCode).toBe(200);
      expect(res.json(), code).toMatchObject({ status: 0, code });
    }
    // Unchanged by the refused calls; a Sales member may not read or change them.
    expect((await get(p.admin.token, '/sequence-settings')).data).toEqual(changed.data);
    expect((await t.server.api.get(api('/sequence-settings'), { token: p.sales.token })).statusCode).toBe(403);
    expect((await put({ dailyCap: 10 }, p.sales.token)).statusCode).toBe(403);
    const rotated = (
      await put({
        rotateInboundToken: true,
        timeZone: 'UTC',
        windowStart: '09:00',
        windowEnd: '17:00',
        days: [1, 2, 3, 4, 5],
        dailyCap: 200,
      })
    ).json();
    expect(rotated.data.inboundUrl).not.toBe(first.data.inboundUrl);
  });
});

describe('sequences and versions', () => {
  it('refuses definitions it cannot run, with the documented codes', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ steps: STEPS }, 'name_required'],
      [{ name: 'x'.repeat(201), steps: STEPS }, 'name_invalid'],
      [{ name: 'N' }, 'steps_required'],
      [{ name: 'N', steps: [] }, 'steps_required'],
      [{ name: 'N', steps: Array.from({ length: 21 }, () => STEPS[2]) }, 'steps_invalid'],
      [{ name: 'N', steps: [{ type: 'fax', title: 'x' }] }, 'steps_invalid'],
      [{ name: 'N', steps: [{ type: 'email', title: 'x' }] }, 'steps_invalid'],
      [{ name: 'N', steps: [{ type: 'call', title: 'x', html: '<p>x</p>' }] }, 'steps_invalid'],
      [{ name: 'N', steps: [{ type: 'task', title: '' }] }, 'steps_invalid'],
      [{ name: 'N', steps: [{ type: 'task', title: 'x', waitDays: 91 }] }, 'steps_invalid'],
      [{ name: 'N', steps: [{ type: 'task', title: 'x', waitDays: -1 }] }, 'steps_invalid'],
      // A template the campaigns could not render: refused when saved, not skipped at every customer's step.
      [{ name: 'N', steps: [{ type: 'email', title: 'x', html: '<p>Hi {{first_name}}</p>' }] }, 'steps_invalid'],
      [{ name: 'N', steps: [STEPS[2], { type: 'email', title: 'x', html: '<p>{{#L0}}</p>' }] }, 'steps_invalid'],
      [{ name: 'N', steps: STEPS, deckLinkId: 'no-such-link' }, 'deck_link_id_invalid'],
      [{ name: 'N', steps: STEPS, jump: { readShare: 80, toStep: 1 } }, 'jump_invalid'],
    ];
    for (const [body, code] of cases) {
      const res = await t.server.api.post(api('/sequences'), body, { token: p.sales.token });
      expect(res.statusCode).toBe(200);
      expect(res.json(), code).toMatchObject({ status: 0, code });
    }
    const unknownField = await post(p.sales.token, '/sequences', {
      name: 'N',
      steps: [STEPS[2], { type: 'email', title: 'x', html: '<p>Hi {{first_name}}</p>' }],
    });
    expect(unknownField.msg).toContain('steps[1].html');
    expect(unknownField.msg).toContain('{{first_name}}');
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Pricing', type: 2, website: 'https://example.com/pricing' });
    for (const jump of [
      { readShare: 0, toStep: 1 },
      { readShare: 101, toStep: 1 },
      { readShare: 50, toStep: 0 },
      { readShare: 50, toStep: 3 },
    ]) {
      const res = await post(p.sales.token, '/sequences', { name: 'N', steps: STEPS, deckLinkId: link.id, jump });
      expect(res, JSON.stringify(jump)).toMatchObject({ status: 0, code: 'jump_invalid' });
    }
    const ok = await made(p.sales.token, { deckLinkId: link.id, jump: { readShare: 100, toStep: 1 } });
    expect(ok).toMatchObject({ version: 1, deckLinkId: link.id, jump: { readShare: 100, toStep: 1 } });
    // Nothing half-made by the refused calls.
    const count = await t.server.ctx.database.db
      .selectFrom('sequences')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('app_id', '=', p.appId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('an edit makes a new version; an enrolled customer keeps the version they were enrolled in', async () => {
    const s = await made(p.sales.token, { name: 'Versions' });
    expect(s).toMatchObject({
      name: 'Versions',
      version: 1,
      steps: [
        { type: 'email', waitDays: 0, html: STEPS[0]!.html, note: null },
        { type: 'call', note: 'Ask about the budget', html: null },
        { type: 'task' },
      ],
    });
    const [early] = await customers(p.sales.id, 1);
    expect(await enroll(p.sales.token, s.id, { customer_ids: [early] })).toMatchObject({ status: 'done', done: 1, failed: 0 });

    const edited = (
      await t.server.api.put(api(`/sequence/${s.id}`), { name: 'Versions 2', steps: [STEPS[1]] }, { token: p.sales.token })
    ).json() as Res<Seq>;
    expect(edited).toMatchObject({
      status: 1,
      data: { name: 'Versions 2', version: 2, steps: [{ type: 'call' }], enrollments: { active: 1 } },
    });
    const [late] = await customers(p.sales.id, 1);
    await enroll(p.sales.token, s.id, { customer_ids: [late] });
    expect((await enrollmentsOf(early!))[0]).toMatchObject({
      sequenceId: s.id,
      version: 1,
      state: 'active',
      step: 0,
      sequenceName: 'Versions 2',
    });
    expect((await enrollmentsOf(late!))[0]).toMatchObject({ version: 2 });
    // Version 1 is kept as it was made.
    expect(await get(p.sales.token, `/sequence/${s.id}/versions/1`)).toMatchObject({
      status: 1,
      data: { version: 1, steps: [{ type: 'email' }, { type: 'call' }, { type: 'task' }] },
    });
    expect(await get(p.sales.token, `/sequence/${s.id}/versions/3`)).toMatchObject({ status: 0, code: 'sequence_version_not_found' });
    // An edit is checked as a new one: a template the campaigns could not render makes no version.
    const badEdit = { name: 'Bad', steps: [{ type: 'email', title: 'x', html: '<p>{{first_name}}</p>' }] };
    expect((await t.server.api.put(api(`/sequence/${s.id}`), badEdit, { token: p.sales.token })).json()).toMatchObject({
      status: 0,
      code: 'steps_invalid',
    });
    // Another Sales member may read it, not change it; the Admin may.
    expect(
      (await t.server.api.put(api(`/sequence/${s.id}`), { name: 'Mine', steps: STEPS }, { token: p.sales2.token })).json(),
    ).toMatchObject({ status: 0, code: 'sequence_not_found' });
    expect(await get(p.sales2.token, `/sequence/${s.id}`)).toMatchObject({ status: 1, data: { version: 2 } });
    const list = await get<Seq[]>(p.master.token, '/sequences');
    expect(list.data.find((x) => x.id === s.id)).toMatchObject({ enrollments: { active: 2, paused: 0, finished: 0, exited: 0 } });
  });

  it('archiving exits the active and paused enrolments (sequence_deleted); the sequence is gone', async () => {
    const s = await made(p.sales.token, { name: 'Archived' });
    const ids = await customers(p.sales.id, 3);
    await enroll(p.sales.token, s.id, { customer_ids: ids });
    const [first] = await enrollmentsOf(ids[0]!);
    await post(p.sales.token, `/enrollment/${first!.id}/pause`);
    await post(p.sales.token, `/enrollment/${(await enrollmentsOf(ids[1]!))[0]!.id}/exit`);
    const del = (await t.server.api.delete(api(`/sequence/${s.id}`), { token: p.sales.token })).json();
    expect(del).toMatchObject({ status: 1, data: { exited: 2 } });
    expect((await enrollmentsOf(ids[0]!))[0]).toMatchObject({ state: 'exited', exitReason: 'sequence_deleted' });
    expect((await enrollmentsOf(ids[1]!))[0]).toMatchObject({ state: 'exited', exitReason: 'removed' });
    expect(await get(p.sales.token, `/sequence/${s.id}`)).toMatchObject({ status: 0, code: 'sequence_not_found' });
    expect(await post(p.sales.token, `/sequence/${s.id}/enrollments`, { customer_ids: ids })).toMatchObject({
      status: 0,
      code: 'sequence_not_found',
    });
  });
});

describe('enrolment', () => {
  it("form fields name the customers comma-separated, as the campaigns' customer_ids do", async () => {
    const s = await made(p.master.token, { name: 'From a form' });
    const ids = await customers(p.master.id, 2);
    const res = (
      await t.server.api.post(api(`/sequence/${s.id}/enrollments`), { customer_ids: ids.join(',') }, { token: p.master.token, form: true })
    ).json() as Res<Job>;
    expect(res, JSON.stringify(res)).toMatchObject({ status: 1, data: { action: 'enroll', sequenceId: s.id } });
    expect(await settled(p.master.token, res.data.id)).toMatchObject({ status: 'done', total: 2, done: 2 });
    expect((await enrollmentsOf(ids[1]!))[0]).toMatchObject({ state: 'active', sequenceId: s.id });
  });

  it('a Sales member enrols only customers they see; an enrolled customer is skipped; the owner sends', async () => {
    const s = await made(p.sales.token, { name: 'Mine only' });
    const mine = await customers(p.sales.id, 3);
    const theirs = await customers(p.sales2.id, 2);
    const [noMail] = await customers(p.sales.id, 1, false);
    const job = await enroll(p.sales.token, s.id, { customer_ids: [...mine, ...theirs, noMail, 'nobody'] });
    expect(job).toMatchObject({ status: 'done', total: 7, done: 4, failed: 3, failures: { byCode: { customer_not_found: 3 } } });
    expect(await enrollmentsOf(theirs[0]!)).toEqual([]);
    expect((await enrollmentsOf(noMail!))[0]).toMatchObject({ state: 'active', ownerId: p.sales.id });
    const again = await enroll(p.sales.token, s.id, { customer_ids: mine });
    expect(again).toMatchObject({ done: 0, failed: 3, failures: { byCode: { already_enrolled: 3 } } });
    // The Admin enrols sales2's customers: sales2 (their owner, an active member) sends.
    await enroll(p.admin.token, s.id, { customer_ids: theirs });
    expect((await enrollmentsOf(theirs[0]!))[0]).toMatchObject({ ownerId: p.sales2.id, state: 'active' });
    // The bulk module's own endpoint takes the action too.
    const [viaBulk] = await customers(p.sales.id, 1);
    const res = (
      await t.server.api.post(
        api('/customers/bulk'),
        { action: 'enroll', sequenceId: s.id, customerIds: [viaBulk] },
        { token: p.sales.token },
      )
    ).json() as Res<Job>;
    expect(await settled(p.sales.token, res.data.id)).toMatchObject({ action: 'enroll', done: 1 });
    expect(await post(p.sales.token, '/customers/bulk', { action: 'enroll', customerIds: [viaBulk] })).toMatchObject({
      status: 0,
      code: 'Bad Request',
    });
    // A sequence's page lists what the caller may see.
    const page = await get<Enrollment[]>(p.sales.token, `/sequence/${s.id}/enrollments`, { state: 'active', count: 100 });
    expect(page.data.map((e) => e.customerId).sort()).toEqual([...mine, noMail, viaBulk].sort());
    expect((await get<Enrollment[]>(p.master.token, `/sequence/${s.id}/enrollments`, { count: 100 })).data).toHaveLength(7);
    expect(await get(p.sales.token, `/sequence/${s.id}/enrollments`, { state: 'sleeping' })).toMatchObject({
      status: 0,
      code: 'Bad Request',
    });
    expect(await get(p.sales.token, `/customer/${theirs[0]}/enrollments`)).toMatchObject({ status: 0, code: 'customer_not_found' });
  });

  it('enrols all customers matching the list filters as one job', async () => {
    const s = await made(p.master.token, { name: 'By filter' });
    const ids = await customers(p.sales2.id, 25);
    const job = await enroll(p.master.token, s.id, { all: { svcUserId: String(p.sales2.id) } });
    expect(job.total).toBeGreaterThanOrEqual(25);
    expect(job.done).toBe(job.total);
    for (const id of [ids[0], ids[24]]) expect((await enrollmentsOf(id!))[0]).toMatchObject({ sequenceId: s.id, state: 'active' });
    expect(await post(p.master.token, `/sequence/${s.id}/enrollments`, {})).toMatchObject({ status: 0, code: 'Bad Request' });
  });

  it('pause, resume and exit, each only from the state it leaves', async () => {
    const s = await made(p.sales.token, { name: 'Steer' });
    const [c] = await customers(p.sales.id, 1);
    await enroll(p.sales.token, s.id, { customer_ids: [c] });
    const [e] = await enrollmentsOf(c!);
    expect(await post(p.sales.token, `/enrollment/${e!.id}/resume`)).toMatchObject({ status: 0, code: 'enrollment_state_invalid' });
    expect(await post(p.sales.token, `/enrollment/${e!.id}/pause`)).toMatchObject({ status: 1, data: { state: 'paused', dueAt: null } });
    expect(await post(p.sales.token, `/enrollment/${e!.id}/pause`)).toMatchObject({ status: 0, code: 'enrollment_state_invalid' });
    const resumed = await post<Enrollment & { dueAt: string }>(p.sales.token, `/enrollment/${e!.id}/resume`);
    expect(resumed).toMatchObject({ status: 1, data: { state: 'active' } });
    expect(resumed.data.dueAt).not.toBeNull();
    // Another Sales member does not see it.
    expect(await post(p.sales2.token, `/enrollment/${e!.id}/pause`)).toMatchObject({ status: 0, code: 'enrollment_not_found' });
    expect(await post(p.sales.token, `/enrollment/${e!.id}/exit`, { reason: 'bored' })).toMatchObject({ status: 0, code: 'Bad Request' });
    expect(await post(p.sales.token, `/enrollment/${e!.id}/exit`, { reason: 'replied' })).toMatchObject({
      status: 1,
      data: { state: 'exited', exitReason: 'replied' },
    });
    expect(await post(p.sales.token, `/enrollment/${e!.id}/exit`)).toMatchObject({ status: 0, code: 'enrollment_state_invalid' });
    expect(await post(p.sales.token, '/enrollment/nope/pause')).toMatchObject({ status: 0, code: 'enrollment_not_found' });
  });
});

describe('replies', () => {
  it('marked replied through the API: every active or paused enrolment of the customer exits replied', async () => {
    const [a, b] = [await made(p.sales.token, { name: 'R1' }), await made(p.sales.token, { name: 'R2' })];
    const [c] = await customers(p.sales.id, 1);
    await enroll(p.sales.token, a.id, { customer_ids: [c] });
    await enroll(p.sales.token, b.id, { customer_ids: [c] });
    await post(p.sales.token, `/enrollment/${(await enrollmentsOf(c!)).find((e) => e.sequenceId === b.id)!.id}/pause`);
    expect(await post(p.sales2.token, `/customer/${c}/replied`)).toMatchObject({ status: 0, code: 'customer_not_found' });
    expect(await post(p.sales.token, `/customer/${c}/replied`)).toMatchObject({ status: 1, data: { exited: 2 } });
    expect((await enrollmentsOf(c!)).map((e) => [e.state, e.exitReason])).toEqual([
      ['exited', 'replied'],
      ['exited', 'replied'],
    ]);
    expect(await post(p.sales.token, `/customer/${c}/replied`)).toMatchObject({ status: 1, data: { exited: 0 } });
  });

  it('a mail to the reply address, posted by the provider to the inbound webhook, exits its sender; anything else changes nothing', async () => {
    const s = await made(p.sales.token, { name: 'Inbound' });
    const ids = await customers(p.sales.id, 3);
    await enroll(p.sales.token, s.id, { customer_ids: ids });
    const url = new URL(String((await get<{ inboundUrl: string }>(p.master.token, '/sequence-settings')).data.inboundUrl)).pathname;
    const [c1, c2, c3] = ids.map((id) => `seq${id.slice('seq-c-'.length)}@example.com`);
    // JSON, Postmark's and Mailgun's (form-encoded) shapes.
    const json = await t.server.api.post(url, {
      from: `"Person" <${c1!.toUpperCase()}>`,
      to: 'replies@example.com',
      subject: 'Re: Hello',
      text: 'Yes',
    });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual({ status: 1 });
    const postmark = await t.server.api.post(url, {
      FromName: 'Person',
      From: c2,
      FromFull: { Email: c2, Name: 'Person' },
      Subject: 'Re',
      TextBody: 'ok',
    });
    expect(postmark.statusCode).toBe(200);
    // An address no customer has: 200, nothing changes.
    const unknown = await t.server.api.post(url, { sender: 'stranger@example.org', subject: 'hi' }, { form: true });
    expect(unknown.statusCode).toBe(200);
    const states = async () => Promise.all(ids.map(async (id) => (await enrollmentsOf(id))[0]!.exitReason ?? 'active'));
    expect(await states()).toEqual(['replied', 'replied', 'active']);
    const mailgun = await t.server.api.post(url, { sender: c3, from: `Person <${c3}>`, subject: 'Re', 'body-plain': 'ok' }, { form: true });
    expect(mailgun.statusCode).toBe(200);
    expect(await states()).toEqual(['replied', 'replied', 'replied']);
    // SendGrid's Inbound Parse: multipart, with an attachment (drained, not read).
    const [c4] = await customers(p.sales.id, 1);
    await enroll(p.sales.token, s.id, { customer_ids: [c4] });
    const parse = multipart(
      { field: 'attachment1', filename: 'quote.pdf', bytes: Buffer.alloc(20_000, 1) },
      { from: `Person <seq${c4!.slice('seq-c-'.length)}@example.com>`, to: 'replies@example.com', subject: 'Re', text: 'Sounds good' },
    );
    const sendgrid = await t.server.api.post(url, parse.payload, { headers: { 'content-type': parse.contentType } });
    expect(sendgrid.statusCode, sendgrid.body).toBe(200);
    expect(sendgrid.json()).toEqual({ status: 1 });
    expect((await enrollmentsOf(c4!))[0]).toMatchObject({ state: 'exited', exitReason: 'replied' });
    // An unknown token is an unknown address; nothing else is told apart.
    const bad = await t.server.api.post('/hooks/inbound-mail/not-a-real-token-at-all-000000', { from: c1 });
    expect(bad.statusCode).toBe(404);
    expect((await t.server.api.post(url, 'not json', { headers: { 'content-type': 'text/plain' } })).statusCode).toBeLessThan(500);
  });
});

describe('exits read from the feed', () => {
  it('a form filled in, an unsubscribe and a hard bounce exit the customer from every sequence; Customer delete too', async () => {
    const s = await made(p.sales.token, { name: 'Exits' });
    const [former, leaver, bouncer, deleted, stays] = await customers(p.sales.id, 5);
    await enroll(p.sales.token, s.id, { customer_ids: [former, leaver, bouncer, deleted, stays] });
    // A form on the site.
    const when = new Date().toISOString().slice(0, 19).replace('T', ' ');
    expect(
      (await ingest(t.server, p, [event('BehaviourLog', `form-${former}`, { customerId: former, action: 'submit_form', when })])).json(),
    ).toMatchObject({ status: 1 });
    // A campaign's mail: the leaver unsubscribes (RFC 8058 one-click), the bouncer's server refuses it for good.
    const bouncerAddress = `seq${bouncer!.slice('seq-c-'.length)}@example.com`;
    t.box.reject.set(bouncerAddress, { code: 550, message: 'No such user' });
    const campaign = (
      await post<{ postId: string }>(p.sales.token, '/posts', { title: 'News', html: '<p>hi</p>', customer_ids: `${leaver},${bouncer}` })
    ).data;
    await t.server.services.campaignSender.drain();
    t.box.reject.clear();
    const mail = t.box.inbox.find((m) => m.mail.headers.get('x-rapport-post') === campaign.postId)!;
    const unsub = /<([^>]+)>/.exec(mail.mail.headerLines.find((h) => h.key === 'list-unsubscribe')!.line)![1]!;
    const done = await t.server.api.post(new URL(unsub).pathname, 'List-Unsubscribe=One-Click', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(done.statusCode).toBe(200);
    expect((await t.server.api.delete(api(`/member/${p.sales.id}/customer/${deleted}`), { token: p.sales.token })).json()).toMatchObject({
      status: 1,
    });

    const reason = async (id: string) => (await enrollmentsOf(id))[0]?.exitReason ?? null;
    expect(await reason(former!)).toBeNull();
    let passes = 0;
    while ((await readFeed()).events > 0) passes += 1;
    expect(passes).toBeGreaterThan(0);
    expect(await reason(former!)).toBe('form_submitted');
    expect(await reason(leaver!)).toBe('unsubscribed');
    expect(await reason(bouncer!)).toBe('bounced');
    expect(
      await t.server.ctx.database.db
        .selectFrom('sequence_enrollments')
        .select(['state', 'exit_reason'])
        .where('app_id', '=', p.appId)
        .where('customer_id', '=', deleted!)
        .executeTakeFirstOrThrow(),
    ).toEqual({ state: 'exited', exit_reason: 'customer_deleted' });
    expect(await reason(stays!)).toBeNull();
    // Read once: a later pass changes nothing.
    await post(p.sales.token, `/enrollment/${(await enrollmentsOf(former!))[0]!.id}/exit`);
    expect((await readFeed()).changed).toBe(0);
  });

  it("the relay's pruning keeps the events the sequences' reader has not read yet", async () => {
    const db = t.server.ctx.database.db;
    while ((await readFeed()).events > 0);
    const old = Date.now() - 30 * 86_400_000;
    const [id] = await db
      .transaction()
      .execute((trx) =>
        writeEvents(trx, p.appId, [{ event_type: 'create', domainType: 'Customer', domainId: 'prune-probe', body: {} }], old),
      );
    const relay = new Relay(t.server.ctx);
    try {
      await relay.tick();
      await relay.prune();
      const kept = () => db.selectFrom('outbox').select('id').where('app_id', '=', p.appId).where('id', '=', id!).execute();
      expect(await kept()).toHaveLength(1);
      while ((await readFeed()).events > 0);
      await relay.prune();
      expect(await kept()).toHaveLength(0);
    } finally {
      await relay.close();
    }
  });
});

describe('events out', () => {
  it('enrolled, paused, resumed and exited: each an Enrollment event with the customer, sequence and version', async () => {
    const s = await made(p.sales.token, { name: 'Events' });
    const [c] = await customers(p.sales.id, 1);
    await enroll(p.sales.token, s.id, { customer_ids: [c] });
    const [e] = await enrollmentsOf(c!);
    await post(p.sales.token, `/enrollment/${e!.id}/pause`);
    await post(p.sales.token, `/enrollment/${e!.id}/resume`);
    await post(p.sales.token, `/customer/${c}/replied`);
    const events = (await feedEvents(t.server, p.appId, p.master.token)).filter(
      (x) => x.domainType === 'Enrollment' && x.domainId === e!.id,
    );
    expect(events.map((x) => x.event_type)).toEqual(['enrolled', 'paused', 'resumed', 'exited']);
    for (const x of events)
      expect(x.body).toMatchObject({
        id: e!.id,
        appId: p.appId,
        sequenceId: s.id,
        version: 1,
        customerId: c,
        svcUserId: String(p.sales.id),
      });
    expect(events[3]!.body).toMatchObject({ state: 'exited', exitReason: 'replied' });
  });
});

describe('for the playbooks, erasure and merges', () => {
  it('enrollOne and exitCustomer in the caller transaction; an erased customer loses its enrolments', async () => {
    const s = await made(p.sales.token, { name: 'Automation' });
    const [c] = await customers(p.sales.id, 1);
    const { automation } = t.server.services.sequences;
    const db = t.server.ctx.database.db;
    const one = (customerId: string) =>
      db.transaction().execute((trx) => automation.enrollOne(trx, { appId: p.appId, sequenceId: s.id, customerId, actorId: p.master.id }));
    expect(await one(c!)).toBe('enrolled');
    expect(await one(c!)).toBe('skipped');
    expect(await one('nobody')).toBe('skipped');
    expect((await enrollmentsOf(c!))[0]).toMatchObject({ ownerId: p.sales.id, state: 'active' });
    const exit = () =>
      db
        .transaction()
        .execute((trx) => automation.exitCustomer(trx, { appId: p.appId, customerId: c!, sequenceId: null, reason: 'playbook' }));
    expect(await exit()).toBe(1);
    expect(await exit()).toBe(0);
    expect((await enrollmentsOf(c!))[0]).toMatchObject({ state: 'exited', exitReason: 'playbook' });

    const erased = await t.server.api.post(api(`/customer/${c}/erase`), undefined, { token: p.master.token });
    expect(erased.json(), erased.body).toMatchObject({ status: 1, data: { erased: { sequence_enrollments: 1 } } });
    expect(
      await db.selectFrom('sequence_enrollments').select('id').where('app_id', '=', p.appId).where('customer_id', '=', c!).execute(),
    ).toEqual([]);
  });
});

describe('merges', () => {
  it("a merged customer's enrolments move to the survivor; where the survivor runs the same sequence, the merged one exits merged", async () => {
    const [s1, s2] = [await made(p.sales.token, { name: 'M1' }), await made(p.sales.token, { name: 'M2' })];
    const [survivor, merged] = await customers(p.sales.id, 2);
    await enroll(p.sales.token, s1.id, { customer_ids: [survivor, merged] });
    await enroll(p.sales.token, s2.id, { customer_ids: [merged] });
    const res = await t.server.api.post(
      api(`/member/${p.sales.id}/customer/merge`),
      { main_customer_id: survivor, merge_user_ids: merged },
      { token: p.sales.token, form: true },
    );
    expect(res.json(), res.body).toMatchObject({ status: 1 });
    await t.server.services.merges.runPending(0);
    const rows = await t.server.ctx.database.db
      .selectFrom('sequence_enrollments')
      .select(['sequence_id', 'customer_id', 'state', 'exit_reason'])
      .where('app_id', '=', p.appId)
      .where('customer_id', 'in', [survivor!, merged!])
      .orderBy('sequence_id')
      .orderBy('customer_id')
      .execute();
    expect(rows).toEqual(
      [
        { sequence_id: s1.id, customer_id: survivor, state: 'active', exit_reason: null },
        { sequence_id: s1.id, customer_id: merged, state: 'exited', exit_reason: 'merged' },
        { sequence_id: s2.id, customer_id: survivor, state: 'active', exit_reason: null },
      ].sort((x, y) => (x.sequence_id + x.customer_id < y.sequence_id + y.customer_id ? -1 : 1)),
    );
  });
});

describe('funnel', () => {
  it('counts enrolments by state and reason, and per step the runs, mails opened and clicked, replies and tasks', async () => {
    const s = await made(p.sales.token, { name: 'Funnel' });
    const ids = await customers(p.sales.id, 4);
    await enroll(p.sales.token, s.id, { customer_ids: ids });
    const db = t.server.ctx.database.db;
    // What the runner records (the runner's own tests run it): e-mail step 0 sent to three, through a campaign's recipient rows.
    const campaign = (
      await post<{ postId: string }>(p.sales.token, '/posts', { title: 'T', html: '<p>x</p>', customer_ids: ids.slice(0, 3).join(',') })
    ).data;
    const recipients = await db
      .selectFrom('campaign_recipients')
      .select(['id', 'customer_id'])
      .where('app_id', '=', p.appId)
      .where('campaign_id', '=', campaign.postId)
      .execute();
    const mailOf = new Map(recipients.map((r) => [r.customer_id, r.id]));
    await db
      .updateTable('campaign_recipients')
      .set({ opens: 2 })
      .where('app_id', '=', p.appId)
      .where('id', 'in', [mailOf.get(ids[0]!)!, mailOf.get(ids[1]!)!])
      .execute();
    await db
      .updateTable('campaign_recipients')
      .set({ clicks: 1 })
      .where('app_id', '=', p.appId)
      .where('id', '=', mailOf.get(ids[0]!)!)
      .execute();
    const enrolments = new Map((await Promise.all(ids.map(async (id) => (await enrollmentsOf(id))[0]!))).map((e) => [e.customerId, e.id]));
    const run = (customerId: string, step: number, kind: string, outcome: string, mailId: string | null) => ({
      app_id: p.appId,
      enrollment_id: enrolments.get(customerId)!,
      step,
      sequence_id: s.id,
      version: 1,
      customer_id: customerId,
      kind,
      outcome,
      detail: outcome === 'skipped' ? 'no_email' : null,
      mail_id: mailId,
      task_id: null,
      owner_id: p.sales.id,
      day: '2026-11-30',
      created_at: Date.now(),
    });
    await db
      .insertInto('sequence_step_runs')
      .values([
        ...ids.slice(0, 3).map((id) => run(id, 0, 'email', 'sent', mailOf.get(id)!)),
        run(ids[3]!, 0, 'email', 'skipped', null),
        run(ids[0]!, 1, 'call', 'task', null),
      ])
      .execute();
    await db.updateTable('sequence_enrollments').set({ step: 1 }).where('app_id', '=', p.appId).where('sequence_id', '=', s.id).execute();
    await post(p.sales.token, `/customer/${ids[1]}/replied`);
    await post(p.sales.token, `/enrollment/${enrolments.get(ids[2]!)}/pause`);
    const res = await get<Record<string, unknown>>(p.sales2.token, `/sequence/${s.id}/funnel`);
    expect(res).toMatchObject({
      status: 1,
      data: {
        enrolled: 4,
        active: 2,
        paused: 1,
        finished: 0,
        exited: { total: 1, byReason: { replied: 1 } },
        steps: [
          { step: 0, type: 'email', title: 'Hello {{name}}', reached: 4, sent: 3, opened: 2, clicked: 1, replied: 1, tasks: 0, skipped: 1 },
          { step: 1, type: 'call', reached: 1, sent: 0, opened: 0, clicked: 0, replied: 0, tasks: 1, skipped: 0 },
          { step: 2, type: 'task', reached: 0 },
        ],
      },
    });
    expect(await get(p.sales.token, '/sequence/nope/funnel')).toMatchObject({ status: 0, code: 'sequence_not_found' });
  });
});
