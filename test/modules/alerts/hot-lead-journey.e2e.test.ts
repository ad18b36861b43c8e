// lanes: sqlite postgres
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PHONE_UA, launchChromium } from '../../helpers/browser.ts';
import { type ChatReceiver, startChatReceivers } from '../../helpers/chat-receivers.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, addCustomers, event, feedEvents, historyProject, ingest } from '../../helpers/histories.ts';
import { type LinkData, madeLink, renderedFile } from '../../helpers/links.ts';
import { startMailbox } from '../../helpers/mailbox.ts';
import { freePort } from '../../helpers/process.ts';

/**
 * The journey the alerts exist for, end to end: a customer reads the deck their salesperson sent, on a
 * phone, in a real Chromium (375 px, touch, a phone's user agent), against a server listening on a
 * port with its background jobs running (the evaluator, the relay, the mail jobs). Then, through HTTP:
 * the customer's score and its reason in words, the hot leads (this customer first, ahead of a less
 * engaged one), one inbox entry for the reading (the hot lead folded into it), one line in the daily
 * digest at the member's local hour (the clock moved there), and one message on each of four local
 * chat robots that check each platform's signature or format. Deliveries are awaited with a bounded
 * wait of 60 s (the alerts' promise), not a fixed sleep; the only pauses are the customer's reading
 * time on each page.
 */
const port = await freePort();
const smtpPort = await freePort();
const base = `http://127.0.0.1:${port}`;
const t = useTestServer({
  PUBLIC_BASE_URL: base,
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  SMTP_FROM: 'Rapport <alerts@rapport.example>',
  // The chat robots are local servers: the test-only allowance of private addresses (as the channel tests).
  WEBHOOK_ALLOW_PRIVATE: 'true',
});
const SECRETS = { slackPath: 'XXjourneyXXslackXX', wecomKey: 'wecom-journey-key', dingtalk: 'SECding-journey', feishu: 'feishu-journey' };
/** The alerts' promise: told within a minute. */
const WITHIN_MS = 60_000;

let p: HistoryProject;
let link: LinkData;
let browser: Browser;
let box: Awaited<ReturnType<typeof startMailbox>>;
let robots: Awaited<ReturnType<typeof startChatReceivers>>;

/** Polls `read` until `done` holds, for at most WITHIN_MS. */
async function within<T>(what: string, read: () => Promise<T> | T, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + WITHIN_MS;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`not within ${WITHIN_MS / 1000} s: ${what}: ${JSON.stringify(v).slice(0, 1000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function api<T>(url: string, token: string, query: Record<string, string | number> = {}): Promise<T> {
  const res = (await t.server.api.get(url, { token, query })).json() as { status: number; data: T };
  expect(res.status, JSON.stringify(res)).toBe(1);
  return res.data;
}

interface Entry {
  signal: string;
  customerId: string;
  title: string;
  text: string;
  data: Record<string, unknown>;
}

beforeAll(async () => {
  box = await startMailbox(smtpPort);
  robots = await startChatReceivers(SECRETS);
  await t.server.app.listen({ port, host: '127.0.0.1' });
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'hj-ada', owner: p.sales.id, name: 'Ada Lovelace' },
    { id: 'hj-bob', owner: p.sales.id, name: 'Bob Idle' },
  ]);
  await t.server.ctx.database.db.updateTable('users').set({ email: 'sales.person@example.com' }).where('id', '=', p.sales.id).execute();
  // A deck read makes a hot lead in this project (10 points; the default threshold is 25).
  const rules = await t.server.api.put(`/api/v1.7/app/${p.appId}/scoring`, { hot_score: 10 }, { token: p.master.token });
  expect(rules.json().data.hotScore, rules.body).toBe(10);
  // Bob, less engaged, clicked a campaign mail a while ago (3 points): a hot lead's list has him, below.
  const click = event('BehaviourLog', 'hj-bob-click', {
    customerId: 'hj-bob',
    action: 'mail_click',
    when: t.server.ctx.clock.format(Date.now() - 60 * 60_000),
    content: JSON.stringify({ postId: 'post-1', url: 'https://example.com/offer' }),
  });
  expect((await ingest(t.server, p, [click])).json().status).toBe(1);
  // The salesperson: one alert per reading (the open not asked for), hot leads, a digest at 09:00 in Shanghai.
  const settings = await t.server.api.put(
    '/api/v1.7/user/notification-settings',
    { signals: 'deck_read,hot_lead', email: 'digest', time_zone: 'Asia/Shanghai', digest_hour: 9 },
    { token: p.sales.token },
  );
  expect(settings.json().status, settings.body).toBe(1);
  // The team's four chat robots, taking the readings and the hot leads.
  for (const [kind, url, secret] of [
    ['slack', robots.slack.url, undefined],
    ['wecom', robots.wecom.url, undefined],
    ['dingtalk', robots.dingtalk.url, SECRETS.dingtalk],
    ['feishu', robots.feishu.url, SECRETS.feishu],
  ] as const) {
    const made = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/notification-channels`,
      { kind, url, events: 'deck_read,hot_lead', locale: 'en-US', ...(secret ? { secret } : {}) },
      { token: p.master.token },
    );
    expect(made.json().status, made.body).toBe(1);
  }
  const fileId = await renderedFile(t.server, p, p.sales.token);
  link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Pricing', file_id: fileId, customer_id: 'hj-ada' });
  // The background jobs, as a server runs them: the evaluator, the relay, the mail jobs, the view sweep.
  t.server.services.jobs.start();
  browser = await launchChromium({ userAgent: PHONE_UA });
}, 120_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await browser?.close();
  await robots?.close();
  await box?.close();
});

describe('a customer reads the deck on a phone', () => {
  it('turns the pages of the shared deck in the viewer, and leaves', async () => {
    const context = await browser.newContext({
      viewport: { width: 375, height: 812 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      userAgent: PHONE_UA,
    });
    const page = await context.newPage();
    const opened = page.waitForRequest((r) => r.url().endsWith('/events') && (r.postData() ?? '').includes('"type":"open"'));
    await page.goto(`${base}/l/${link.shareToken}`);
    await opened;
    for (const next of [2, 3]) {
      // A page is read for a moment, then the next one tapped.
      await page.waitForTimeout(1500);
      await page.tap('#next');
      await expect.poll(() => page.locator('#current').textContent()).toBe(String(next));
    }
    await page.waitForTimeout(1500);
    await page.close();
    await context.close();
    const logs = await within(
      'the view to be closed with its 3 pages',
      () => api<{ totalPage: number; leaveTime: string | null }[]>(`/api/v1.7/link/${link.id}/view-logs`, p.sales.token),
      (l) => l[0]?.leaveTime != null && l[0]?.totalPage === 3,
    );
    expect(logs).toHaveLength(1);
  });

  it('scores her: a deck read, in words; the hot leads have her first, ahead of the less engaged Bob', async () => {
    const ada = await api<{ score: number; scoreReasons: { kind: string; text: string }[] }>(
      '/api/v1.7/customer/hj-ada/detail',
      p.sales.token,
    );
    expect(ada.score).toBe(10);
    expect(ada.scoreReasons.map((r) => [r.kind, r.text])).toEqual([['deck_read', "read 3 of 3 pages of 'deck.pdf' today"]]);
    const leads = await api<{ customerId: string; score: number }[]>(`/api/v1.7/app/${p.appId}/hot-leads`, p.sales.token);
    expect(leads.map((l) => l.customerId)).toEqual(['hj-ada', 'hj-bob']);
    expect(leads[1]?.score).toBeLessThan(leads[0]?.score ?? 0);
    // Announced once, as a Customer hot event in the feed.
    const hot = (await feedEvents(t.server, p.appId, p.master.token)).filter((e) => e.event_type === 'hot');
    expect(hot).toMatchObject([
      { domainType: 'Customer', domainId: 'hj-ada', body: { id: 'hj-ada', svcUserId: String(p.sales.id), score: 10 } },
    ]);
  });

  it('tells the salesperson once: one inbox entry for the reading, carrying the hot lead', async () => {
    const entries = await within(
      'the reading in the inbox',
      async () => (await api<Entry[]>('/api/v1.7/notifications', p.sales.token, { count: 100 })).filter((e) => e.customerId === 'hj-ada'),
      (e) => e.length > 0,
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ signal: 'deck_read', data: { pagesRead: 3, pageCount: 3, percent: 100, hot: true, score: 10 } });
    expect(entries[0]?.title).toMatch(/^Ada Lovelace read 3 of 3 pages of 'Pricing' \(\d+ s\)$/);
    expect(entries[0]?.text).toMatch(
      /^100% of 'Pricing' read, in \d+ s\. Now a hot lead: Score 10: read \d of 3 pages of 'deck\.pdf' today\.$/,
    );
  });

  it('posts one message on each of the four chat robots, each valid as its platform checks it', async () => {
    const all: ChatReceiver[] = [robots.slack, robots.wecom, robots.dingtalk, robots.feishu];
    await within(
      'a message on each robot',
      () => all.map((r) => r.accepted.length),
      (n) => n.every((x) => x >= 1),
    );
    // Settled: nothing more comes (one message per signal), and no robot refused a signature.
    const inbox = await api<Entry[]>('/api/v1.7/notifications', p.sales.token, { count: 100 });
    expect(inbox.filter((e) => e.customerId === 'hj-ada')).toHaveLength(1);
    expect(all.map((r) => [r.accepted.length, r.refused])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
      [1, 0],
    ]);
    const title = "Ada Lovelace read 3 of 3 pages of 'Pricing'";
    const url = `${base}/console/p/${p.appId}/customers/hj-ada`;
    // Slack's incoming webhook: {text, blocks}, a mrkdwn section (the headline in bold) and the link.
    const slack = robots.slack.accepted[0] as { text: string; blocks: { type: string; text?: { type: string; text: string } }[] };
    expect(slack.text).toContain(`${title} (`);
    expect(slack.blocks[0]).toMatchObject({ type: 'section', text: { type: 'mrkdwn' } });
    expect(slack.blocks[0]?.text?.text).toMatch(/^\*Ada Lovelace read 3 of 3 pages of 'Pricing' \(\d+ s\)\*\n100% of 'Pricing' read/);
    expect(slack.blocks[1]).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${url}|Open in Rapport>` }] });
    // WeCom's group robot: {msgtype: markdown, markdown: {content}}, the key in the URL.
    const wecom = robots.wecom.accepted[0] as { msgtype: string; markdown: { content: string } };
    expect(Object.keys(wecom).sort()).toEqual(['markdown', 'msgtype']);
    expect(wecom.msgtype).toBe('markdown');
    expect(wecom.markdown.content).toContain(title);
    expect(wecom.markdown.content).toContain('Now a hot lead: Score 10');
    expect(wecom.markdown.content).toContain(`(${url})`);
    // DingTalk and Feishu: accepted only with a valid signature (the robots check it as the platforms do).
    expect(robots.dingtalk.accepted[0]).toMatchObject({ msgtype: 'markdown', markdown: { title: expect.stringContaining(title) } });
    expect(robots.feishu.accepted[0]).toMatchObject({ msg_type: 'post', timestamp: expect.any(String), sign: expect.any(String) });
  });

  it('puts one line about her in the daily digest at 09:00 in Shanghai', async () => {
    const settings = await api<{ nextDigestAt: string }>('/api/v1.7/user/notification-settings', p.sales.token);
    const at = t.server.ctx.clock.parse(settings.nextDigestAt) as number;
    const real = t.server.ctx.clock.now.bind(t.server.ctx.clock);
    const shift = at + 30_000 - real();
    // The server's clock moved to the member's local hour (the digest job reads it); no waiting for the day.
    vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => real() + shift);
    await t.server.services.alerts.mail.sendDigests();
    await within(
      'the digest mail',
      () => box.inbox,
      (m) => m.length >= 1,
    );
    // The only mail: the member takes e-mail as a digest, and the directed deck's open is no first-open e-mail.
    const [digest, ...more] = box.inbox;
    expect(more).toEqual([]);
    expect(digest?.to).toEqual(['sales.person@example.com']);
    expect(digest?.mail.subject).toBe('Rapport daily digest: 1 alert');
    const lines = (digest?.mail.text ?? '').split('\n').filter((l) => l.includes('Ada Lovelace'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? {2}Ada Lovelace read 3 of 3 pages of 'Pricing' \(\d+ s\)$/);
  });
});
