// lanes: sqlite
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lang, text } from '../../console/e2e/locale.ts';
import { ChannelsPage } from '../../console/e2e/pages/ChannelsPage.ts';
import { CustomerPage } from '../../console/e2e/pages/CustomerPage.ts';
import { InboxDrawer } from '../../console/e2e/pages/InboxDrawer.ts';
import { NotificationSettingsPage } from '../../console/e2e/pages/NotificationSettingsPage.ts';
import { launchChromium, watchNoise } from '../helpers/browser.ts';
import { startChatReceivers } from '../helpers/chat-receivers.ts';
import { expectAccessible, settledShot, shot } from '../helpers/console-checks.ts';
import { signedInPage } from '../helpers/console-session.ts';
import { customerEvent } from '../helpers/histories.ts';
import { type ProvisionedProject, provisionProject, registerByEmail, serveOnFreePort, useProcessDatabase } from '../helpers/process.ts';

/**
 * The inbox, the notification settings and the chat channels in a real browser against a real server
 * process, at 1440 px in English and at 375 px (touch) in Chinese: a colleague mentions the owner in
 * two notes (through the HTTP API); the bell counts them, live; the inbox says who mentioned them,
 * opening one marks it read and leads to the customer, "mark all read" the rest. The settings page turns
 * a signal off and the e-mail to a daily summary at 18:00 (read back through HTTP). The chat channels
 * page adds a DingTalk robot (a local one that checks the signature as DingTalk does) and sends a
 * test: the robot got it and the page says so; a robot with a wrong secret shows DingTalk's refusal.
 * Each screen axe clean, with no failed request and no console error.
 */
const PHONE = '13700000071';
const PASSWORD = 'a long enough password';
const COLLEAGUE = { email: 'mia@inbox.example', nickname: 'Mia Mentioner', password: PASSWORD };
const SECRETS = { slackPath: 'XXslackXX', wecomKey: 'wecom-key', dingtalk: 'SECding-secret-0001', feishu: 'feishu-secret' };
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
let colleague: { id: number; token: string };
let ownerId = 0;
let robots: Awaited<ReturnType<typeof startChatReceivers>>;
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];
/** The machine is shared: the alert evaluator's pass and the lists may take a while. */
const POLL = { timeout: 30_000 };

const CUSTOMERS = {
  1440: { id: 'ib-desk', name: 'Li Wei', lang: 'en-US' },
  375: { id: 'ib-phone', name: 'Wang Fang', lang: 'zh-CN' },
} as const;

async function api<T>(path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : project.auth),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const body = (await res.json()) as { status: number; data: T };
  expect(body.status, JSON.stringify(body)).toBe(1);
  return body.data;
}

/** The colleague's note on a customer, mentioning the owner: a `mention` alert for the owner. */
async function mentionOwner(customerId: string, words: string): Promise<void> {
  await api(`/api/v1.7/app/${project.appId}/customer/${customerId}/notes`, {
    method: 'POST',
    token: colleague.token,
    body: { content: `${words} @[owner](member:${ownerId})` },
  });
}

beforeAll(async () => {
  // The test's chat robots listen on 127.0.0.1.
  base = await serveOnFreePort(processes, () => ({ WEBHOOK_ALLOW_PRIVATE: 'true' }));
  project = await provisionProject(base, processes.db.env, PHONE);
  const members = await api<{ svcUserId: number; role: string }[]>(`/api/v1.7/app/${project.appId}/members`);
  ownerId = members.find((m) => m.role === 'Master')?.svcUserId ?? 0;
  // The colleague, an Admin of the project, writes the notes.
  colleague = await registerByEmail(base, processes.db.env, COLLEAGUE);
  await api(`/api/v1.7/app/${project.appId}/members`, { method: 'POST', body: { svc_user_id: colleague.id, role: 'Admin' } });
  await api(`/api/v1.7/user/membership/${project.appId}/accept`, { method: 'POST', token: colleague.token });
  const res = await project.ingest(Object.values(CUSTOMERS).map((c) => customerEvent(c.id, { name: c.name })));
  expect(await res.json()).toMatchObject({ status: 1 });
  robots = await startChatReceivers(SECRETS);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await robots?.close();
});

const signedIn = (width: number, touch: boolean, lang: Lang) =>
  signedInPage(browser, base, PHONE, { width, touch, lang, pageErrors, contexts });

const unread = () => api<{ unread: number }>('/api/v1.7/notifications/unread-count').then((r) => r.unread);

describe('the inbox, notification settings and chat channels in the console', { timeout: 240_000 }, () => {
  for (const [width, touch] of [
    [1440, false],
    [375, true],
  ] as const) {
    const customer = CUSTOMERS[width];
    const lang = customer.lang;

    it(`at ${width} px (${lang}): the bell counts two mentions, the inbox opens one and marks all read`, async () => {
      const page = await signedIn(width, touch, lang);
      const noise = watchNoise(page);
      const detail = new CustomerPage(page, lang);
      await detail.open(base, project.appId, customer.id);
      await detail.heading(customer.name).waitFor();
      const inbox = new InboxDrawer(page, lang);
      expect(await inbox.unread()).toBe(0);

      // Two mentions, through the API, while the page is open: the bell counts them as they are told.
      await mentionOwner(customer.id, 'Can you call them back?');
      await mentionOwner(customer.id, 'They asked for the pricing deck.');
      await expect.poll(() => inbox.unread(), POLL).toBe(2);
      expect(await inbox.bell.getAttribute('aria-label')).toBe(inbox.bellName(2));
      await expectAccessible(page, `the bell with two unread at ${width}`);

      // The inbox says it in words: who mentioned them, about which customer.
      await inbox.open();
      // Those about this width's customer (the other width's, read, are listed too).
      const heard = inbox.item(customer.name);
      await expect.poll(() => heard.count(), POLL).toBe(2);
      await expect.poll(() => inbox.drawer.locator('[data-read="false"]').count(), POLL).toBe(2);
      expect(await heard.first().innerText()).toContain(COLLEAGUE.nickname);
      expect(await heard.first().innerText()).toContain('They asked for the pricing deck.');
      await expectAccessible(page, `the inbox at ${width}`);
      await shot(page, `inbox-${width}`);

      // Opening one marks it read and leads to the customer.
      await heard.first().getByRole('link').click();
      await page.waitForURL((u) => u.pathname.endsWith(`/customers/${customer.id}`));
      await expect.poll(() => inbox.unread(), POLL).toBe(1);
      expect(await unread()).toBe(1);

      // Mark all read: the bell has nothing left to count.
      await inbox.open();
      await inbox.markAllRead();
      await page.getByText(text(lang, 'notifications.inbox.markedAllRead', { count: 1 }), { exact: true }).waitFor();
      await expect.poll(() => inbox.unread(), POLL).toBe(0);
      expect(await inbox.bell.getAttribute('aria-label')).toBe(inbox.bellName(0));
      expect(await unread()).toBe(0);
      await expect.poll(() => inbox.drawer.locator('[data-read="false"]').count(), POLL).toBe(0);

      // The settings, from the inbox: no alert for a task due, a daily summary at 18:00.
      await inbox.openSettings();
      const settings = new NotificationSettingsPage(page, lang);
      await settings.heading.waitFor();
      await settings.signal('task_due').click();
      await settings.email('digest');
      await settings.digestHour('18:00');
      await expectAccessible(page, `the notification settings at ${width}`);
      await settings.save();
      await settledShot(page, `inbox-settings-${width}`);
      const stored = await api<{ signals: string[]; email: string; digestHour: number }>('/api/v1.7/user/notification-settings');
      expect(stored).toMatchObject({
        signals: ['deck_opened', 'deck_read', 'revisit', 'forward', 'hot_lead', 'mention'],
        email: 'digest',
        digestHour: 18,
      });
      // Back as they were, for the other width.
      await api('/api/v1.7/user/notification-settings', {
        method: 'PUT',
        body: { signals: 'deck_opened,deck_read,revisit,forward,hot_lead,task_due,mention', email: 'off' },
      });

      // The chat channels, from the settings (the member manages the project): a DingTalk robot that signs, tested.
      await settings.chatChannels();
      const channels = new ChannelsPage(page, lang);
      await channels.heading.waitFor();
      const good = `Sales group ${width}`;
      await channels.add('dingtalk', good, robots.dingtalk.url, SECRETS.dingtalk);
      await channels.card(good).waitFor();
      const before = robots.dingtalk.accepted.length;
      const ok = await channels.sendTest(good);
      const platform = text(lang, 'notifications.channels.kinds.dingtalk');
      await expect.poll(() => ok.innerText(), POLL).toBe(text(lang, 'notifications.channels.testOk', { platform }));
      expect(robots.dingtalk.accepted.length).toBe(before + 1);

      // A robot whose secret is wrong: DingTalk's refusal, in words.
      const bad = `Wrong secret ${width}`;
      await channels.add('dingtalk', bad, robots.dingtalk.url, 'SECwrong');
      await channels.card(bad).waitFor();
      const refused = await channels.sendTest(bad);
      await expect
        .poll(() => refused.innerText(), POLL)
        .toBe(text(lang, 'notifications.channels.testRefused', { platform, error: 'dingtalk 310000: sign not match' }));
      const listed = await api<{ name: string; kind: string; url: string }[]>(`/api/v1.7/app/${project.appId}/notification-channels`);
      expect(listed.map((c) => c.name)).toEqual(expect.arrayContaining([good, bad]));
      await expectAccessible(page, `the chat channels at ${width}`);
      await settledShot(page, `inbox-channels-${width}`);

      noise.stop();
      expect(noise.failures).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  }
});
