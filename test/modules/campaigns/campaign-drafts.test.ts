// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { startMailbox } from '../../helpers/mailbox.ts';
import { freePort } from '../../helpers/process.ts';

/**
 * A campaign draft's preview and test mail (docs/campaigns.md, "Drafts"): rendered by the server's
 * own rules for one customer or sample values, mailed to the caller's own address to a real SMTP
 * server in-process, never stored as a campaign or a Post, limited per user.
 */
const smtpPort = await freePort();
const t = useTestServer({
  PUBLIC_BASE_URL: 'https://rapport.example',
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  SMTP_FROM: 'Campaigns <mail@rapport.example>',
  RATE_LIMITS: 'on',
  RATE_LIMIT_TOKEN: '100000',
  RATE_LIMIT_TEST_MAIL: '3',
});
const noMail = useTestServer({});

let box: Awaited<ReturnType<typeof startMailbox>>;
let p: HistoryProject;

beforeAll(async () => {
  box = await startMailbox(smtpPort);
  p = await historyProject(t.server);
  const db = t.server.ctx.database.db;
  for (const [user, email] of [
    [p.sales, 'sales.person@example.com'],
    [p.admin, 'admin.person@example.com'],
    [p.master, 'master.person@example.com'],
  ] as const) {
    await db.updateTable('users').set({ email }).where('id', '=', user.id).execute();
  }
});
afterAll(async () => {
  await box.close();
});

let seq = 0;
async function customer(owner: number, fields: { name?: string; email?: string | null; company?: string; group?: string } = {}) {
  seq += 1;
  const now = Date.now();
  const id = `draft-c-${seq}`;
  const email = fields.email === undefined ? `draft${seq}@example.com` : fields.email;
  await t.server.ctx.database.db
    .insertInto('customers')
    .values({
      id,
      app_id: p.appId,
      owner_id: owner,
      name: fields.name ?? `Draft ${seq}`,
      company: fields.company ?? null,
      email,
      email_lower: email?.toLowerCase() ?? null,
      group_id: fields.group ?? null,
      status: 1,
      is_new: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

const preview = (token: string, body: Record<string, unknown>) =>
  t.server.api.post(`/api/v1.7/app/${p.appId}/post-previews`, body, { token });
const test = (token: string, body: Record<string, unknown>) => t.server.api.post(`/api/v1.7/app/${p.appId}/post-tests`, body, { token });

interface Preview {
  subject: string;
  html: string;
  text: string;
  customerId: string | null;
  recipientCount: number | null;
}

async function campaignsAndPosts() {
  const db = t.server.ctx.database.db;
  const campaigns = await db.selectFrom('campaigns').select('id').where('app_id', '=', p.appId).execute();
  const posts = await t.server.api.get('/api/v1.7/posts', { token: p.master.token, query: { app_id: p.appId, count: 100 } });
  return { campaigns: campaigns.length, posts: (posts.json() as unknown[]).length };
}

describe('previewing a draft', () => {
  it("renders a customer's merge values escaped in the HTML part, as they are in the text part", async () => {
    const c = await customer(p.sales.id, { name: '<b>Ada</b> & "Co"', company: 'Engines' });
    const res = await preview(p.sales.token, {
      title: '  Hello  ',
      html: '<p>Dear {{name}} of {{ company }},</p><p><a href="https://example.com/offer?a=1&amp;b=2">the offer</a></p>',
      customer_id: c,
    });
    expect(res.statusCode).toBe(200);
    const data = (res.json() as { status: number; data: Preview }).data;
    expect(res.json()).toMatchObject({ status: 1 });
    expect(data.subject).toBe('Hello');
    expect(data.customerId).toBe(c);
    expect(data.recipientCount).toBeNull();
    expect(data.html).toContain('Dear &#60;b&#62;Ada&#60;/b&#62; &#38; &#34;Co&#34; of Engines,');
    expect(data.html).not.toContain('<b>Ada</b>');
    // Links go to their own targets (a preview counts no click); no open pixel; the unsubscribe footer is there.
    expect(data.html).toContain('href="https://example.com/offer?a=1&#38;b=2"');
    expect(data.html).not.toContain('/m/c/');
    expect(data.html).not.toContain('<img');
    expect(data.html).toContain('unsubscribe');
    expect(data.text).toContain('Dear <b>Ada</b> & "Co" of Engines,');
    expect(data.text).toContain('the offer (https://example.com/offer?a=1&b=2)');
  });

  it('fills sample values without a customer, and counts the recipients a campaign would have', async () => {
    const a = await customer(p.sales.id);
    const b = await customer(p.sales.id, { email: null });
    const res = await preview(p.sales.token, { title: 'T', html: '<p>{{name}} {{email}}</p>', customer_ids: `${a},${b}` });
    const data = (res.json() as { data: Preview }).data;
    expect(data.customerId).toBeNull();
    expect(data.html).toContain('Ada Lovelace ada@example.com');
    // The customer without an address is not mailed.
    expect(data.recipientCount).toBe(1);
  });

  it('refuses what a campaign refuses, on the field it names', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ html: '<p>x</p>' }, 'title_required'],
      [{ title: '   ', html: '<p>x</p>' }, 'title_required'],
      [{ title: 'T' }, 'html_required'],
      [{ title: 'T', html: '<p>{{password}}</p>' }, 'html_invalid'],
      [{ title: 'T', html: '<p>{{#L0}}</p>' }, 'html_invalid'],
      [{ title: 'T', html: '<p>x</p>', customer_id: 'nobody' }, 'customer_not_found'],
      [{ title: 'T', html: '<p>x</p>', customer_ids: 'nobody' }, 'customer_not_found'],
    ];
    for (const [body, code] of cases) {
      const res = await preview(p.sales.token, body);
      expect(res.statusCode, code).toBe(200);
      expect(res.json(), code).toMatchObject({ status: 0, code });
    }
    expect((await preview(p.outsider.token, { title: 'T', html: 'x' })).statusCode).toBe(403);
  });

  it('a Sales member previews with their own customers only; the Master and Admins with any', async () => {
    const other = await customer(p.sales2.id, { name: 'Not yours' });
    expect((await preview(p.sales.token, { title: 'T', html: '{{name}}', customer_id: other })).json()).toMatchObject({
      status: 0,
      code: 'customer_not_found',
    });
    expect((await preview(p.sales.token, { title: 'T', html: '{{name}}', customer_ids: other })).json()).toMatchObject({
      status: 0,
      code: 'customer_not_found',
    });
    const res = await preview(p.admin.token, { title: 'T', html: '{{name}}', customer_id: other });
    expect((res.json() as { data: Preview }).data.html).toContain('Not yours');
  });

  it("counts a group's recipients as a campaign would: a Sales member's own customers of it, one per address", async () => {
    const g = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/customer-groups`,
      { name: 'Draft group', svc_user_id: p.sales.id },
      { token: p.master.token },
    );
    const groupId = (g.json() as { data: { id: string } }).data.id;
    await customer(p.sales.id, { group: groupId, email: 'same@example.com' });
    await customer(p.sales.id, { group: groupId, email: 'SAME@example.com' });
    await customer(p.sales.id, { group: groupId });
    await customer(p.sales2.id, { group: groupId });
    const count = async (token: string) =>
      ((await preview(token, { title: 'T', html: 'x', group_id: groupId })).json() as { data: Preview }).data.recipientCount;
    expect(await count(p.sales.token)).toBe(2);
    expect(await count(p.admin.token)).toBe(3);
  });

  it('works without SMTP; nothing is stored', async () => {
    const q = await historyProject(noMail.server);
    const res = await noMail.server.api.post(
      `/api/v1.7/app/${q.appId}/post-previews`,
      { title: 'T', html: '<p>{{name}}</p>' },
      { token: q.sales.token },
    );
    expect(res.json()).toMatchObject({ status: 1, data: { subject: 'T' } });
  });
});

describe('a test mail', () => {
  it("goes to the caller's own address only, marked [Test], with the customer's values, and is no campaign", async () => {
    const before = await campaignsAndPosts();
    const c = await customer(p.sales.id, { name: '<i>Grace</i>', email: 'grace@example.com' });
    const res = await test(p.sales.token, {
      title: 'Spring offer',
      html: '<p>Hi {{name}}, <a href="https://example.com/spring">see</a></p>',
      customer_id: c,
    });
    expect(res.json(), res.body).toMatchObject({ status: 1, data: { to: 'sales.person@example.com', subject: '[Test] Spring offer' } });
    const [mail] = await box.waitFor(1);
    expect(mail!.to).toEqual(['sales.person@example.com']);
    expect(mail!.mail.subject).toBe('[Test] Spring offer');
    expect(mail!.mail.html).toContain('Hi &#60;i&#62;Grace&#60;/i&#62;,');
    expect(mail!.mail.html).toContain('href="https://example.com/spring"');
    expect(mail!.mail.html).not.toContain('/m/o/');
    expect(mail!.mail.text).toContain('Hi <i>Grace</i>, see (https://example.com/spring)');
    expect(mail!.mail.headers.get('x-rapport-post')).toBeUndefined();
    // The customer is not mailed, and nothing is recorded as a campaign or a Post, or counted.
    expect(box.inbox.some((m) => m.to.includes('grace@example.com'))).toBe(false);
    expect(await campaignsAndPosts()).toEqual(before);
    const behaviour = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/customer/${c}/behaviour`, { token: p.master.token });
    expect((behaviour.json() as { data: unknown[] }).data).toEqual([]);
  });

  it('refuses an invalid draft, a customer not the caller’s, and a caller without an e-mail address', async () => {
    const other = await customer(p.sales2.id);
    const sent = box.inbox.length;
    expect((await test(p.admin.token, { title: 'T', html: '{{nope}}' })).json()).toMatchObject({ status: 0, code: 'html_invalid' });
    expect((await test(p.sales.token, { title: 'T', html: 'x', customer_id: other })).json()).toMatchObject({
      status: 0,
      code: 'customer_not_found',
    });
    expect((await test(p.sales2.token, { title: 'T', html: 'x' })).json()).toMatchObject({ status: 0, code: 'account_email_missing' });
    expect(box.inbox.length).toBe(sent);
  });

  it('answers mail_not_configured without SMTP_URL', async () => {
    const q = await historyProject(noMail.server);
    const res = await noMail.server.api.post(`/api/v1.7/app/${q.appId}/post-tests`, { title: 'T', html: 'x' }, { token: q.sales.token });
    expect(res.json()).toMatchObject({ status: 0, code: 'mail_not_configured' });
  });

  it('is limited per user: past RATE_LIMIT_TEST_MAIL a minute, 429 rate_limited; another user still may', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await test(p.master.token, { title: `Try ${i}`, html: '<p>x</p>' })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await test(p.master.token, { title: 'Again', html: '<p>x</p>' });
    expect(refused.json()).toMatchObject({ status: 0, code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(box.inbox.filter((m) => m.to.includes('master.person@example.com'))).toHaveLength(3);
    // Previews are not test mails: they do not spend the budget.
    expect((await preview(p.master.token, { title: 'T', html: 'x' })).json()).toMatchObject({ status: 1 });
    expect((await test(p.admin.token, { title: 'Mine', html: '<p>x</p>' })).json()).toMatchObject({ status: 1 });
  });
});
