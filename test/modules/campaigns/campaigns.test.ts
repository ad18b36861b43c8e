// lanes: sqlite postgres
import { beforeAll, describe, expect, it } from 'vitest';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { Browser, madeLink } from '../../helpers/links.ts';
import type { Delivered } from '../../helpers/mailbox.ts';
import { useMailedTestServer } from '../../helpers/mailed-server.ts';

/**
 * E-mail campaigns: made through the API, sent to a real SMTP server in-process (smtp-server) and
 * read back with mailparser; tracked opens and clicks, unsubscribe, SMTP failures, pause and cancel,
 * and the counters of the interface's `GET /api/v1.7/posts`.
 */
const BASE = 'https://rapport.example';
const t = await useMailedTestServer({
  PUBLIC_BASE_URL: BASE,
  SMTP_FROM: 'Campaigns <mail@rapport.example>',
  MAIL_RATE_PER_SECOND: '1000',
  MAIL_MACHINE_OPEN_SECONDS: '0',
});
const PERSON_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';

let p: HistoryProject;

beforeAll(async () => {
  p = await historyProject(t.server);
});

let seq = 0;
/** Customers with e-mail addresses, inserted as the customers module stores them. */
async function customers(list: { owner: number; name?: string; email?: string | null; group?: string }[]): Promise<string[]> {
  const now = Date.now();
  const rows = list.map((c) => {
    seq += 1;
    const email = c.email === undefined ? `person${seq}@example.com` : c.email;
    return {
      id: `mail-c-${seq}`,
      app_id: p.appId,
      owner_id: c.owner,
      name: c.name ?? `Person ${seq}`,
      email,
      email_lower: email?.toLowerCase() ?? null,
      group_id: c.group ?? null,
      status: 1,
      is_new: 1,
      created_at: now,
      updated_at: now,
    };
  });
  await t.server.ctx.database.db.insertInto('customers').values(rows).execute();
  return rows.map((r) => r.id);
}

interface CampaignData {
  postId: string;
  status: string;
  recipientCount: number;
  states: Record<string, number>;
  done: number;
}

const create = (token: string, body: Record<string, unknown>) => t.server.api.post(`/api/v1.7/app/${p.appId}/posts`, body, { token });
async function made(token: string, body: Record<string, unknown>): Promise<CampaignData> {
  const res = await create(token, body);
  expect(res.json(), res.body).toMatchObject({ status: 1 });
  return (res.json() as { data: CampaignData }).data;
}
const progress = async (token: string, postId: string) =>
  (await t.server.api.get(`/api/v1.7/app/${p.appId}/post/${postId}`, { token })).json() as { status: number; data: CampaignData };

async function post(postId: string): Promise<Record<string, unknown>> {
  const res = await t.server.api.get('/api/v1.7/posts', { token: p.master.token, query: { app_id: p.appId, count: 100 } });
  const found = (res.json() as Record<string, unknown>[]).find((x) => x.postId === postId);
  expect(found, `post ${postId} listed`).toBeDefined();
  return found as Record<string, unknown>;
}

/** Sends everything due and returns the mails that arrived for this campaign. */
async function sendAll(postId: string): Promise<Delivered[]> {
  await t.server.services.campaignSender.drain();
  return t.box.inbox.filter((m) => m.mail.headers.get('x-rapport-post') === postId);
}

const pathOf = (url: string) => {
  const u = new URL(url);
  expect(u.origin).toBe(BASE);
  return u.pathname + u.search;
};
/** A header as it was written (unfolded). */
const headerLine = (mail: Delivered['mail'], key: string) => mail.headerLines.find((h) => h.key === key)?.line.replace(/\r?\n\s+/g, ' ');
const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&'));

async function behaviourOf(customerId: string) {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/customer/${customerId}/behaviour`, { token: p.master.token });
  return (res.json() as { data: { action: string; content: string }[] }).data;
}

describe('creating a campaign', () => {
  it('refuses what it cannot send', async () => {
    const [c] = await customers([{ owner: p.sales.id }]);
    const [noMail] = await customers([{ owner: p.sales.id, email: null }]);
    const cases: [Record<string, unknown>, string][] = [
      [{ html: '<p>x</p>', customer_ids: c }, 'title_required'],
      [{ title: 'T', customer_ids: c }, 'html_required'],
      [{ title: 'T', html: '<p>{{password}}</p>', customer_ids: c }, 'html_invalid'],
      [{ title: 'T', html: '<p>x</p>' }, 'customer_ids_required'],
      [{ title: 'T', html: '<p>x</p>', customer_ids: c, send_at: 'tomorrow' }, 'send_at_invalid'],
      [{ title: 'T', html: '<p>x</p>', customer_ids: 'nobody' }, 'customer_not_found'],
      [{ title: 'T', html: '<p>x</p>', customer_ids: noMail }, 'no_recipients'],
    ];
    for (const [body, code] of cases) {
      const res = await create(p.sales.token, body);
      expect(res.statusCode).toBe(200);
      expect(res.json(), code).toMatchObject({ status: 0, code });
    }
    expect((await create(p.outsider.token, { title: 'T', html: '<p>x</p>', customer_ids: c })).statusCode).toBe(403);
  });

  it('a Sales member mails only their own customers; by group, only their own of the group', async () => {
    const g = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/customer-groups`,
      { name: 'Mail group', svc_user_id: p.sales.id },
      { token: p.master.token },
    );
    const groupId = (g.json() as { data: { id: string } }).data.id;
    const [own] = await customers([{ owner: p.sales.id, group: groupId }]);
    const [other] = await customers([{ owner: p.sales2.id, group: groupId }]);
    expect((await create(p.sales.token, { title: 'T', html: 'x', customer_ids: `${own},${other}` })).json()).toMatchObject({
      status: 0,
      code: 'customer_not_found',
    });
    const byGroup = await made(p.sales.token, { title: 'Group', html: 'x', group_id: groupId });
    expect(byGroup.recipientCount).toBe(1);
    const byManager = await made(p.admin.token, { title: 'Group', html: 'x', group_id: groupId });
    expect(byManager.recipientCount).toBe(2);
    // Neither is sent here.
    for (const id of [byGroup.postId, byManager.postId])
      await t.server.api.post(`/api/v1.7/app/${p.appId}/post/${id}/cancel`, {}, { token: p.admin.token });
    // Another Sales member's campaign is not found; the manager sees it.
    expect(await progress(p.sales2.token, byGroup.postId)).toMatchObject({ status: 0, code: 'post_not_found' });
    expect(await progress(p.master.token, byGroup.postId)).toMatchObject({ status: 1, data: { status: 'cancelled' } });
  });
});

describe('sending', () => {
  it('each recipient gets one mail: merge fields escaped, HTML and text parts, From, unsubscribe headers, tracked links and pixel', async () => {
    const ids = await customers([
      { owner: p.sales.id, name: 'Ada <b>Lovelace</b> & Co', email: 'ada@example.com' },
      { owner: p.sales.id, name: 'Bob', email: 'bob@example.com' },
      // The same address twice (another customer): mailed once.
      { owner: p.sales.id, name: 'Bob again', email: 'BOB@example.com ' },
    ]);
    const html =
      '<html><body><h1>Hello {{name}}</h1><p>See <a href="https://shop.example/offer?x=1&amp;y=2">the offer</a> ' +
      'and <a href="https://shop.example/offer?x=1&amp;y=2">again</a>, or <a href="mailto:sales@example.com">write</a>.</p></body></html>';
    const c = await made(p.sales.token, { title: 'Autumn offer', html, customer_ids: ids.join(',') });
    expect(c).toMatchObject({ status: 'active', recipientCount: 2, states: { queued: 2 } });
    // Listed at once, with its recipients.
    expect(await post(c.postId)).toMatchObject({ title: 'Autumn offer', sendWay: 'email', senderCount: 2, successLogCount: 0 });

    const mails = await sendAll(c.postId);
    expect(mails.map((m) => m.to[0]).sort()).toEqual(['ada@example.com', 'bob@example.com']);
    const ada = mails.find((m) => m.to[0] === 'ada@example.com')!.mail;
    expect(ada.subject).toBe('Autumn offer');
    expect(ada.from?.value[0]).toEqual({ name: 'Histories', address: 'mail@rapport.example' });
    const adaHtml = ada.html as string;
    expect(adaHtml).toContain('Hello Ada &#60;b&#62;Lovelace&#60;/b&#62; &#38; Co');
    expect(adaHtml).not.toContain('<b>Lovelace');
    expect(ada.text).toContain('Hello Ada <b>Lovelace</b> & Co');
    // Links: both http(s) links point to the one tracked address; mailto stays; the original target is gone.
    const links = hrefs(adaHtml);
    const tracked = links.filter((h) => h.startsWith(`${BASE}/m/c/`));
    expect(tracked).toHaveLength(2);
    expect(new Set(tracked).size).toBe(1);
    expect(links).toContain('mailto:sales@example.com');
    expect(adaHtml).not.toContain('shop.example');
    expect(ada.text).toContain(`${BASE}/m/c/`);
    // The pixel, and the unsubscribe link and headers (RFC 8058).
    expect(adaHtml).toMatch(new RegExp(`<img src="${BASE}/m/o/[^"]+"`));
    const unsub = links.find((h) => h.startsWith(`${BASE}/m/u/`))!;
    expect(headerLine(ada, 'list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(headerLine(ada, 'list-unsubscribe')).toBe(`List-Unsubscribe: <${unsub}>`);
    // Bob's links are Bob's own.
    const bob = mails.find((m) => m.to[0] === 'bob@example.com')!.mail;
    expect(hrefs(bob.html as string).find((h) => h.startsWith(`${BASE}/m/c/`))).not.toBe(tracked[0]);

    expect((await progress(p.sales.token, c.postId)).data).toMatchObject({ status: 'done', done: 2, states: { sent: 2, queued: 0 } });
    expect(await post(c.postId)).toMatchObject({ senderCount: 2, successLogCount: 2, viewLogCount: 0 });
    // The send is in the customer's behaviour, through ingestion.
    expect((await behaviourOf(ids[0]!)).map((b) => b.action)).toContain('mail_sent');
    // Sending again sends nothing more.
    expect(await sendAll(c.postId)).toHaveLength(2);
  });

  it('opens count people, not mail proxies; clicks redirect to the stored target with a signed rapport_click', async () => {
    const [id] = await customers([{ owner: p.sales.id, name: 'Opener' }]);
    const c = await made(p.sales.token, {
      title: 'Tracked',
      html: '<p><a href="https://shop.example/landing?utm_source=mail">Go</a></p>',
      customer_ids: id,
    });
    const [mail] = await sendAll(c.postId);
    const html = mail!.mail.html as string;
    const pixel = pathOf(/<img src="([^"]+)"/.exec(html)![1]!);
    const click = pathOf(hrefs(html).find((h) => h.startsWith(`${BASE}/m/c/`))!);
    const browser = { 'user-agent': PERSON_UA };

    const o1 = await t.server.api.get(pixel, { headers: browser });
    expect(o1.statusCode).toBe(200);
    expect(o1.headers['content-type']).toBe('image/gif');
    expect(o1.headers['cross-origin-resource-policy']).toBe('cross-origin');
    await t.server.api.get(pixel, { headers: browser });
    // Machines: Google's image proxy, Apple's addresses, a bot.
    await t.server.api.get(pixel, {
      headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)' },
    });
    await t.server.api.get(pixel, { headers: browser, ip: '17.58.1.2' });
    await t.server.api.get(pixel, { headers: { 'user-agent': 'curl/8.0' } });
    expect(await post(c.postId)).toMatchObject({ viewLogCount: 2, viewLogUserCount: 1 });
    const rec = await t.server.ctx.database.db
      .selectFrom('campaign_recipients')
      .select(['opens', 'machine_opens'])
      .where('app_id', '=', p.appId)
      .where('campaign_id', '=', c.postId)
      .executeTakeFirstOrThrow();
    expect(rec).toEqual({ opens: 2, machine_opens: 3 });
    expect((await behaviourOf(id!)).filter((b) => b.action === 'mail_open')).toHaveLength(2);

    const r = await t.server.api.get(click, { headers: browser });
    expect(r.statusCode).toBe(302);
    expect(r.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const to = new URL(r.headers.location as string);
    expect(to.origin + to.pathname).toBe('https://shop.example/landing');
    expect(to.searchParams.get('utm_source')).toBe('mail');
    const token = to.searchParams.get('rapport_click')!;
    await t.server.api.get(click, { headers: browser });
    expect(await post(c.postId)).toMatchObject({ linkViewLogCount: 2, linkViewLogUserCount: 1 });

    // The site snippet sends the parameter back: the resolver names the customer, and counts the
    // return visit once told it is recorded (returning visitors once each).
    const resolve = t.server.services.campaignTracking.resolveClick;
    const resolved = await resolve(p.appId, token);
    expect(resolved).toMatchObject({ customerId: id, postId: c.postId });
    expect(await resolve('another-project', token)).toBeNull();
    expect(await resolve(p.appId, `${token.slice(0, -2)}xx`)).toBeNull();
    expect(await post(c.postId)).toMatchObject({ returnLogCount: 0, returnLogUserCount: 0 });
    await resolved?.countReturn();
    expect(await post(c.postId)).toMatchObject({ returnLogCount: 1, returnLogUserCount: 1 });
    await resolved?.countReturn();
    expect(await post(c.postId)).toMatchObject({ returnLogCount: 2, returnLogUserCount: 1 });

    // Forged or unknown: 400 in the envelope's shape; a position with no stored target too.
    const forged = click.replace(/\/m\/c\/([^/]+)\//, (_w, tok: string) => `/m/c/${tok.slice(0, -3)}abc/`);
    for (const url of [forged, click.replace(/\/0$/, '/7'), '/m/o/nonsense']) {
      const res = await t.server.api.get(url, { headers: browser });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ status: 0, code: 'mail_token_invalid' });
    }
  });

  it("a tracked click on a share link is that link's view by the recipient; the send is a material send", async () => {
    const [id] = await customers([{ owner: p.sales.id, name: 'Reader' }]);
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Pricing', type: 3, website: 'https://shop.example/pricing' });
    const c = await made(p.sales.token, {
      title: 'Material',
      html: `<p><a href="${BASE}/l/${link.shareToken}">Pricing</a></p>`,
      customer_ids: id,
    });
    const [mail] = await sendAll(c.postId);
    const sends = (await behaviourOf(id!)).filter((b) => b.action === 'send_data_by_mail');
    expect(sends).toHaveLength(1);
    expect(JSON.parse(sends[0]!.content)).toMatchObject({ linkId: link.id });

    const click = pathOf(hrefs(mail!.mail.html as string).find((h) => h.startsWith(`${BASE}/m/c/`))!);
    const r = await t.server.api.get(click, { headers: { 'user-agent': PERSON_UA } });
    const to = pathOf(r.headers.location as string);
    expect(to).toMatch(new RegExp(`^/l/${link.shareToken}\\?rapport_click=`));
    // The browser follows it to the viewer: the redirect link's view is recorded as the customer's.
    const browser = new Browser(t.server);
    const viewed = await browser.get(to);
    expect(viewed.statusCode).toBe(302);
    const logs = await t.server.api.get(`/api/v1.7/link/${link.id}/view-logs`, { token: p.sales.token });
    expect((logs.json() as { data: { viewerId: string }[] }).data.map((l) => l.viewerId)).toEqual([id]);
  });
});

describe('unsubscribe and failures', () => {
  it('GET shows a confirmation, POST (one-click) unsubscribes the address for the project, whoever has it later', async () => {
    const [id] = await customers([{ owner: p.sales.id, email: 'Leaver@Example.com' }]);
    const c = await made(p.sales.token, { title: 'Leaving', html: '<p>hi</p>', customer_ids: id });
    const [mail] = await sendAll(c.postId);
    const unsub = pathOf(/<([^>]+)>/.exec(headerLine(mail!.mail, 'list-unsubscribe')!)![1]!);

    const page = await t.server.api.get(unsub);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<form method="post">');
    expect(page.body).toContain('Le****@Example.com');
    // A GET changes nothing.
    expect(await made(p.sales.token, { title: 'Still', html: 'x', customer_ids: id }).then((x) => x.recipientCount)).toBe(1);

    const done = await t.server.api.post(unsub, 'List-Unsubscribe=One-Click', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('no longer receive');
    expect((await t.server.api.get(unsub)).body).toContain('no longer receives');
    // The address, not the customer: another customer (an import, a merge) with it is not mailed either.
    const [again] = await customers([{ owner: p.sales.id, email: 'leaver@example.COM' }]);
    expect((await create(p.sales.token, { title: 'Again', html: 'x', customer_ids: `${id},${again}` })).json()).toMatchObject({
      status: 0,
      code: 'no_recipients',
    });
    // The campaign made before the unsubscribe does not mail it either.
    await t.server.services.campaignSender.drain();
    const still = await t.server.ctx.database.db
      .selectFrom('campaign_recipients')
      .select('state')
      .where('app_id', '=', p.appId)
      .where('customer_id', '=', id!)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(still.state).toBe('suppressed');
    expect((await t.server.api.get('/m/u/forged.token')).statusCode).toBe(400);
  });

  it('SMTP rejections are failures with their reason; a hard bounce suppresses the address, a temporary one does not', async () => {
    const ids = await customers([
      { owner: p.sales.id, email: 'gone@example.com' },
      { owner: p.sales.id, email: 'full@example.com' },
      { owner: p.sales.id, email: 'fine@example.com' },
    ]);
    t.box.reject.set('gone@example.com', { code: 550, message: 'No such user here' });
    t.box.reject.set('full@example.com', { code: 452, message: 'Mailbox full, try later' });
    const c = await made(p.sales.token, { title: 'Bounces', html: '<p>x</p>', customer_ids: ids.join(',') });
    const mails = await sendAll(c.postId);
    t.box.reject.clear();
    expect(mails.map((m) => m.to[0])).toEqual(['fine@example.com']);
    expect((await progress(p.sales.token, c.postId)).data).toMatchObject({ status: 'done', states: { sent: 1, failed: 2 } });
    expect(await post(c.postId)).toMatchObject({ senderCount: 3, successLogCount: 1 });
    const errors = await t.server.ctx.database.db
      .selectFrom('campaign_recipients')
      .select(['email', 'error'])
      .where('app_id', '=', p.appId)
      .where('campaign_id', '=', c.postId)
      .where('state', '=', 'failed')
      .orderBy('email')
      .execute();
    expect(errors[0]).toMatchObject({ email: 'full@example.com', error: expect.stringContaining('Mailbox full') });
    expect(errors[1]).toMatchObject({ email: 'gone@example.com', error: expect.stringContaining('No such user') });
    const next = await made(p.sales.token, { title: 'After', html: 'x', customer_ids: ids.join(',') });
    expect(next.recipientCount).toBe(2);
    await t.server.api.post(`/api/v1.7/app/${p.appId}/post/${next.postId}/cancel`, {}, { token: p.sales.token });
  });
});

describe('pause, resume, cancel', () => {
  it('a paused campaign sends nothing until resumed; a cancelled one never sends its queued recipients', async () => {
    const ids = await customers([{ owner: p.sales.id }, { owner: p.sales.id }]);
    const url = (id: string, action: string) => `/api/v1.7/app/${p.appId}/post/${id}/${action}`;
    const a = await made(p.sales.token, { title: 'Paused', html: 'x', customer_ids: ids.join(',') });
    expect((await t.server.api.post(url(a.postId, 'pause'), {}, { token: p.sales.token })).json()).toMatchObject({
      status: 1,
      data: { status: 'paused' },
    });
    expect((await t.server.api.post(url(a.postId, 'pause'), {}, { token: p.sales.token })).json()).toMatchObject({
      status: 0,
      code: 'post_state_invalid',
    });
    expect(await sendAll(a.postId)).toHaveLength(0);
    expect((await t.server.api.post(url(a.postId, 'resume'), {}, { token: p.sales.token })).json()).toMatchObject({
      data: { status: 'active' },
    });
    expect(await sendAll(a.postId)).toHaveLength(2);

    const b = await made(p.sales.token, { title: 'Cancelled', html: 'x', customer_ids: ids.join(',') });
    expect((await t.server.api.post(url(b.postId, 'cancel'), {}, { token: p.sales2.token })).json()).toMatchObject({
      status: 0,
      code: 'post_not_found',
    });
    expect((await t.server.api.post(url(b.postId, 'cancel'), {}, { token: p.sales.token })).json()).toMatchObject({
      data: { status: 'cancelled', states: { cancelled: 2, queued: 0 }, done: 2 },
    });
    expect(await sendAll(b.postId)).toHaveLength(0);
    expect((await t.server.api.post(url(b.postId, 'resume'), {}, { token: p.sales.token })).json()).toMatchObject({
      code: 'post_state_invalid',
    });

    // Scheduled later: not sent now.
    const later = new Date(Date.now() + 3600_000).toISOString();
    const c = await made(p.sales.token, { title: 'Later', html: 'x', customer_ids: ids[0], send_at: later });
    expect(await sendAll(c.postId)).toHaveLength(0);
    expect((await progress(p.sales.token, c.postId)).data).toMatchObject({ status: 'active', states: { queued: 1 } });
    await t.server.api.post(url(c.postId, 'cancel'), {}, { token: p.sales.token });
  });
});
