// lanes: sqlite postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, historyProject } from '../../helpers/histories.ts';
import { Browser, type LinkData, count, madeLink, renderedFile } from '../../helpers/links.ts';
import { startSmtpSink } from '../../helpers/smtp-sink.ts';

/**
 * Who is viewing: a directed link's views are its customer's (behaviour records, overview), and so
 * are the later views of the browser that opened it (the creator's first-open e-mail); the form matches or makes a customer through the customers module's
 * create path, never edits one, answers alike either way, and joins the visitor's anonymous views.
 */
const sink = await startSmtpSink();
const t = useTestServer({ SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SMTP_FROM: 'Rapport <alerts@example.com>' });
let p: HistoryProject;
let fileId: string;

beforeAll(async () => {
  p = await historyProject(t.server);
  fileId = await renderedFile(t.server, p, p.sales.token);
  await addCustomers(t.server, p, [{ id: 'id-ada', owner: p.sales.id, name: 'Ada Lovelace' }]);
  for (const [who, email] of [
    [p.sales, 'sales@example.com'],
    [p.sales2, 'sales2@example.com'],
    [p.master, 'master@example.com'],
    [p.admin, 'admin@example.com'],
  ] as const) {
    await t.server.ctx.database.db.updateTable('users').set({ email }).where('id', '=', who.id).execute();
    // The links' creators take their alerts by instant e-mail (every signal, deck_opened among them).
    await settings(who.token, { email: 'instant' });
  }
});
afterAll(async () => {
  await sink.close();
});

interface Behaviour {
  action: string;
  svcUserId: string;
  dealUserId: string;
  dealUserName: string;
  content: string;
  when: string;
  type: number;
  clientName: string | null;
  linkViewLog?: { id: string; durations: unknown[] } | null;
  linkDetail?: { id: string; customer?: { id: string } | null } | null;
  clue?: { email: string | null } | null;
}

const behaviours = async (customerId: string, token = p.sales.token) =>
  (
    (
      await t.server.api.get(`/api/v1.7/app/${p.appId}/member/customer/${customerId}/behaviour`, { token, query: { count: 100 } })
    ).json() as {
      data: Behaviour[];
    }
  ).data;

const overview = async (customerId: string, token = p.sales.token) =>
  ((await t.server.api.get(`/api/v1.7/customer/${customerId}/overview`, { token })).json() as { data: Record<string, unknown> }).data;

/** The link creator's alert settings (docs/alerts.md "Settings"). */
async function settings(token: string, fields: Record<string, string>): Promise<void> {
  const res = await t.server.api.put('/api/v1.7/user/notification-settings', fields, { token });
  expect(res.json()).toMatchObject({ status: 1 });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A whole view: open, a second page read, leave. Returns the view token. */
async function readLink(b: Browser, link: LinkData): Promise<string> {
  const token = (await b.open(link.shareToken)).viewToken as string;
  expect((await b.beacon(link.shareToken, { type: 'open', seq: 1, token, page: 1 })).json()).toMatchObject({ data: { counted: true } });
  await sleep(400);
  await b.beacon(link.shareToken, { type: 'page', seq: 2, token, page: 2, dwell: { 1: 300 } });
  await sleep(300);
  await b.beacon(link.shareToken, { type: 'leave', seq: 3, token, page: 2, dwell: { 1: 300, 2: 250 } });
  return token;
}

describe('a directed link', () => {
  let link: LinkData;

  it("records its customer's view: link_view_log, a page-turn record per page, link_leave_log, the overview", async () => {
    link = await madeLink(t.server, p.appId, p.sales.token, { name: 'For Ada', file_id: fileId, customer_id: 'id-ada', tags: ['pricing'] });
    const b = new Browser(t.server);
    await readLink(b, link);
    const records = await behaviours('id-ada');
    const actions = records.map((r) => r.action).filter((a) => a !== 'create');
    expect(actions.sort()).toEqual(['file_view_duration', 'file_view_duration', 'link_leave_log', 'link_view_log']);
    const view = records.find((r) => r.action === 'link_view_log') as Behaviour;
    // The visitor's record (type 0): the customer's owner, the visitor's cookie id and the customer's name.
    expect(view).toMatchObject({
      svcUserId: String(p.sales.id),
      type: 0,
      dealUserId: b.cookies.get('rapport_visitor'),
      dealUserName: 'Ada Lovelace',
    });
    expect(view.clientName).toBe('Mobile Safari');
    const content = JSON.parse(view.content) as Record<string, unknown>;
    expect(content).toEqual({ linkId: link.id, linkType: 1, linkViewLogId: view.linkViewLog?.id, title: 'For Ada', linkSrc: 'link_view' });
    expect(view.linkDetail).toMatchObject({ id: link.id, customer: { id: 'id-ada' } });
    expect(view.linkViewLog?.durations).toHaveLength(2);
    const leave = JSON.parse((records.find((r) => r.action === 'link_leave_log') as Behaviour).content) as Record<string, unknown>;
    expect(Object.keys(leave).sort()).toEqual([
      'lastLeaveTime',
      'leaveTime',
      'linkId',
      'linkSrc',
      'linkType',
      'linkViewLogId',
      'title',
      'viewTime',
    ]);
    const turn = JSON.parse((records.find((r) => r.action === 'file_view_duration') as Behaviour).content) as Record<string, unknown>;
    // Beyond the interface's shape, which link and which page: the feed says "Read page 1 of …".
    expect(turn).toMatchObject({ linkViewLogId: view.linkViewLog?.id, linkId: link.id, title: link.name, page: expect.any(Number) });
    expect([1, 2]).toContain(turn.page);
    expect(String(turn.fileViewDurationId)).toMatch(new RegExp(`^${view.linkViewLog?.id}:[01]$`));
    const o = await overview('id-ada');
    expect(o).toMatchObject({ linkCount: 1 });
    expect(o.customerTag).toMatchObject([{ tag: 'pricing', num: 1 }]);
    // The view log names the customer, so it cannot be made a customer again.
    const logs = (await t.server.api.get(`/api/v1.7/link/${link.id}/view-logs`, { token: p.sales.token })).json() as {
      data: { viewerId: string; viewerName: string; canBeCreateCustomer: boolean }[];
    };
    expect(logs.data[0]).toMatchObject({ viewerId: 'id-ada', viewerName: 'Ada Lovelace', canBeCreateCustomer: false });
  });
});

describe('the form', () => {
  let link: LinkData;
  let b: Browser;
  beforeAll(async () => {
    link = await madeLink(t.server, p.appId, p.sales2.token, {
      name: 'Open deck',
      file_id: fileId,
      form_position: 2,
      form_fields: 'name,email,phone,company,interested',
    });
    b = new Browser(t.server);
  });

  it('makes a customer of an anonymous reader and joins their earlier views to it', async () => {
    // Two anonymous views, before the form.
    await readLink(b, link);
    const reload = (await b.open(link.shareToken)).viewToken as string;
    const continued = (await b.beacon(link.shareToken, { type: 'open', seq: 1, token: reload, page: 1 })).json() as {
      data: { token: string };
    };
    const again = continued.data.token;
    const anonymous = (await t.server.api.get(`/api/v1.7/link/${link.id}/view-logs`, { token: p.sales2.token })).json() as {
      data: { id: string; viewerId: string; canBeCreateCustomer: boolean }[];
    };
    expect(anonymous.data).toHaveLength(1); // the reload continued the first view
    expect(anonymous.data[0]?.canBeCreateCustomer).toBe(true);

    const res = await b.post(
      `/l/${link.shareToken}/form`,
      JSON.stringify({
        name: 'Grace Hopper',
        email: 'Grace@Example.com',
        phone: '13900000001',
        company: 'Navy',
        interested: 'Pricing',
        token: again,
      }),
      'application/json',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 1, data: {} });

    const customers = await t.server.ctx.database.db
      .selectFrom('customers')
      .selectAll()
      .where('app_id', '=', p.appId)
      .where('phone', '=', '13900000001')
      .execute();
    expect(customers).toHaveLength(1);
    const grace = customers[0] as (typeof customers)[number];
    expect(grace).toMatchObject({
      name: 'Grace Hopper',
      email: 'Grace@Example.com',
      company: 'Navy',
      create_way: 5,
      owner_id: p.sales2.id,
      status: 1,
    });

    const logs = (await t.server.api.get(`/api/v1.7/link/${link.id}/view-logs`, { token: p.sales2.token })).json() as {
      data: { viewerId: string; viewerName: string; canBeCreateCustomer: boolean; clueId: string | null }[];
    };
    expect(logs.data[0]).toMatchObject({ viewerId: grace.id, viewerName: 'Grace Hopper', canBeCreateCustomer: false });
    expect(logs.data[0]?.clueId).toBeTruthy();

    const records = await behaviours(grace.id, p.sales2.token);
    const actions = records.map((r) => r.action).sort();
    expect(actions).toEqual(['create', 'file_view_duration', 'file_view_duration', 'link_leave_log', 'link_view_clue', 'link_view_log']);
    const clue = records.find((r) => r.action === 'link_view_clue') as Behaviour;
    expect(clue.clue).toMatchObject({ email: 'Grace@Example.com' });
    expect(JSON.parse(clue.content)).toMatchObject({ linkId: link.id, linkType: 1 });
    const listed = ((await t.server.api.get(`/api/v1.7/app/${p.appId}/links`, { token: p.sales2.token })).json() as { data: LinkData[] })
      .data;
    expect(listed.find((l) => l.id === link.id)).toMatchObject({ clueCount: 1, linkViewLogCount: 1 });
    // The joined views count in the customer's overview as if they had been hers all along.
    expect(await overview(grace.id, p.sales2.token)).toMatchObject({ linkCount: 1, clueCount: 1 });
  });

  it("the visitor's later views are the customer's", async () => {
    const token = (await b.open(link.shareToken)).viewToken as string;
    // Past the 30 minutes a reload continues: a new view.
    await t.server.ctx.database.db
      .updateTable('link_view_logs')
      .where('app_id', '=', p.appId)
      .set({ beacon_at: Date.now() - 31 * 60_000 })
      .where('link_id', '=', link.id)
      .execute();
    await b.beacon(link.shareToken, { type: 'open', seq: 1, token, page: 1 });
    const logs = (await t.server.api.get(`/api/v1.7/link/${link.id}/view-logs`, { token: p.sales2.token })).json() as {
      data: { viewerName: string }[];
    };
    expect(logs.data).toHaveLength(2);
    expect(logs.data.map((l) => l.viewerName)).toEqual(['Grace Hopper', 'Grace Hopper']);
  });

  it("e-mails the link's creator on a customer's first open of a link not directed at them, as the alerts would tell them", async () => {
    // The directed link's opens (above) are the alerts' deck_opened signal, not this e-mail: the first
    // message is the undirected link's. The form tied this browser to Grace, Sales 2's customer.
    const open = await madeLink(t.server, p.appId, p.sales2.token, { name: 'Open deck for all', file_id: fileId });
    await readLink(b, open);
    const mail = await sink.nextMessage();
    expect(mail.to.join(' ')).toContain('sales2@example.com');
    expect(mail.data).toContain('Grace Hopper');
    expect(mail.data).toContain('Open deck for all');
    // No e-mail for: a second view; a Sales member's link opened by a colleague's customer (not theirs
    // to see); a member whose choice in the project is none; a member whose e-mail is off. The next
    // message is the one of a link of Sales 2's opened after all of these.
    await readLink(b, open);
    await readLink(b, await madeLink(t.server, p.appId, p.sales.token, { name: 'Not yours', file_id: fileId }));
    const choice = JSON.stringify([{ app_id: p.appId, scope: 'none' }]);
    await settings(p.master.token, { email: 'instant', projects: choice });
    await readLink(b, await madeLink(t.server, p.appId, p.master.token, { name: 'Muted project', file_id: fileId }));
    await settings(p.admin.token, { email: 'off' });
    await readLink(b, await madeLink(t.server, p.appId, p.admin.token, { name: 'No e-mail', file_id: fileId }));
    await readLink(b, await madeLink(t.server, p.appId, p.sales2.token, { name: 'Second deck', file_id: fileId }));
    const next = await sink.nextMessage();
    expect(next.data).toContain('Second deck');
  });

  it('matches an existing customer by mobile number or e-mail and never edits it; the answer is the same', async () => {
    const before = await t.server.ctx.database.db
      .selectFrom('customers')
      .where('app_id', '=', p.appId)
      .selectAll()
      .where('id', '=', 'id-ada')
      .executeTakeFirstOrThrow();
    await t.server.ctx.database.db
      .updateTable('customers')
      .where('app_id', '=', p.appId)
      .set({ email: 'ada@example.com', email_lower: 'ada@example.com' })
      .where('id', '=', 'id-ada')
      .execute();
    const customersBefore = await count(t.server, 'customers');
    const other = new Browser(t.server);
    const res = await other.post(
      `/l/${link.shareToken}/form`,
      JSON.stringify({ name: 'Someone Else', email: 'ADA@example.com', company: 'Changed Ltd' }),
      'application/json',
    );
    expect(res.json()).toEqual({ status: 1, data: {} });
    expect(await count(t.server, 'customers')).toBe(customersBefore);
    const after = await t.server.ctx.database.db
      .selectFrom('customers')
      .where('app_id', '=', p.appId)
      .selectAll()
      .where('id', '=', 'id-ada')
      .executeTakeFirstOrThrow();
    // Only the last activity and the engagement score move: the form filled is the customer's activity
    // (docs/customers.md, "Order, total and activity") and earns points (docs/scoring.md).
    const moved = { last_activity_at: before.last_activity_at, score_key: before.score_key, score_rise_at: before.score_rise_at };
    expect({ ...after, email: before.email, email_lower: before.email_lower, ...moved }).toEqual(before);
    expect(after.score_rise_at).toBeGreaterThan(0);
    expect(after.last_activity_at).not.toBeNull();
    const tied = await t.server.ctx.database.db
      .selectFrom('visitors')
      .where('app_id', '=', p.appId)
      .selectAll()
      .where('id', '=', other.cookies.get('rapport_visitor') as string)
      .execute();
    expect(tied).toMatchObject([{ customer_id: 'id-ada', app_id: p.appId }]);
  });

  it('refuses malformed fields (400 form_invalid); a filled honeypot is answered alike and writes nothing', async () => {
    const c = new Browser(t.server);
    for (const body of [{ email: 'not-an-email' }, { phone: 'call me' }, {}, { name: 'x'.repeat(300) }]) {
      const res = await c.post(`/l/${link.shareToken}/form`, JSON.stringify(body), 'application/json');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 0, code: 'form_invalid' });
    }
    const before = await Promise.all([count(t.server, 'clues'), count(t.server, 'customers'), count(t.server, 'behaviour_logs')]);
    const bot = await c.post(
      `/l/${link.shareToken}/form`,
      JSON.stringify({ name: 'Spam', email: 'spam@example.com', url: 'http://spam' }),
      'application/json',
    );
    expect(bot.json()).toEqual({ status: 1, data: {} });
    expect(await Promise.all([count(t.server, 'clues'), count(t.server, 'customers'), count(t.server, 'behaviour_logs')])).toEqual(before);
  });

  it('works without script: a plain form post comes back to the page, which says it was sent', async () => {
    const c = new Browser(t.server);
    const res = await c.post(
      `/l/${link.shareToken}/form`,
      'name=Plain+Reader&email=plain%40example.com',
      'application/x-www-form-urlencoded',
      {
        accept: 'text/html',
      },
    );
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/l/${link.shareToken}?sent=1#form`);
    const page = await c.get(`/l/${link.shareToken}?sent=1`);
    expect(page.body).toMatch(/<p class="sent" id="form-sent" role="status">/);
  });

  it('takes formatted numbers: matches a customer by its number in another form, and stores a new one as typed', async () => {
    const c = new Browser(t.server);
    const before = await count(t.server, 'customers');
    // Grace (13900000001, above) in international form: matched, not made again.
    const matched = await c.post(`/l/${link.shareToken}/form`, JSON.stringify({ phone: '+86 139-0000-0001' }), 'application/json');
    expect(matched.json()).toEqual({ status: 1, data: {} });
    expect(await count(t.server, 'customers')).toBe(before);
    const made = await c.post(
      `/l/${link.shareToken}/form`,
      JSON.stringify({ name: 'Formatted Reader', phone: '139 0000 0777' }),
      'application/json',
    );
    expect(made.json()).toEqual({ status: 1, data: {} });
    const row = await t.server.ctx.database.db
      .selectFrom('customers')
      .select(['phone', 'phone_key'])
      .where('app_id', '=', p.appId)
      .where('name', '=', 'Formatted Reader')
      .executeTakeFirst();
    expect(row).toEqual({ phone: '139 0000 0777', phone_key: '+8613900000777' });
  });
});
