// lanes: sqlite
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lang, text } from '../../console/e2e/locale.ts';
import { AppShell } from '../../console/e2e/pages/AppShell.ts';
import { CustomerPage } from '../../console/e2e/pages/CustomerPage.ts';
import { HomePage } from '../../console/e2e/pages/HomePage.ts';
import { ProjectsPage } from '../../console/e2e/pages/ProjectsPage.ts';
import { launchChromium, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, settledShot, shot } from '../helpers/console-checks.ts';
import { signedInPage } from '../helpers/console-session.ts';
import { DAY, HOUR, MINUTE, customerEvent } from '../helpers/histories.ts';
import { type ProvisionedProject, provisionProject, serveOnFreePort, useProcessDatabase } from '../helpers/process.ts';

/**
 * The project's home page, "who to call now", in a real browser against a real server process, at
 * 1440 px in English and at 375 px (touch) in Chinese. Customers earn points through the HTTP API
 * (a visit to a site key page, forms, a click in a campaign mail: docs/scoring.md); opening the
 * project from the projects page lands on its home: the hot leads in the order their scores last
 * rose, each score with its reasons in words and its last signal; switched to accounts, two
 * colleagues of one company are one account; today's tasks are ticked off there; the customer list
 * sorts by score and shows each score's largest reason; the customer's page its reasons. Each
 * screen axe clean, with no failed request and no console error.
 */
const PHONE = '13700000071';
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];
const POLL = { timeout: 20_000 };

/** `yyyy-MM-dd HH:mm:ss` in the server's zone (UTC) `ms` ago. */
const ago = (ms: number) => new Date(Date.now() - ms).toISOString().slice(0, 19).replace('T', ' ');
const record = (id: string, customerId: string, action: string, msAgo: number, content: Record<string, string> = {}) => ({
  event_type: 'create',
  domainType: 'BehaviourLog',
  domainId: id,
  body: { customerId, action, when: ago(msAgo), content: JSON.stringify(content) },
});

/** Ava and Ben work at Acme: one account. Ben's click rose last, Ava's score is the highest, Dee has none. */
const NAMES = { 'hl-ava': 'Ava Acme', 'hl-ben': 'Ben Acme', 'hl-cy': 'Cy Solo', 'hl-dee': 'Dee Quiet' } as const;
const PEOPLE_ORDER = ['hl-ben', 'hl-ava', 'hl-cy'];
const SCORE_ORDER = ['Ava Acme', 'Cy Solo', 'Ben Acme', 'Dee Quiet'];

async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...project.auth, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  const body = (await res.json()) as { status: number; data: T };
  expect(body.status, JSON.stringify(body)).toBe(1);
  return body.data;
}

/** Two tasks for the caller, for a width: one overdue since yesterday, one due an hour ago (today's, in any zone but at 00:xx). */
const tasksOf = (width: number): [string, string] => [`Call Ava back (${width})`, `Send Cy the offer (${width})`];

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  base = await serveOnFreePort(processes);
  project = await provisionProject(base, processes.db.env, PHONE);
  await api(`/api/v1.7/app/${project.appId}/scoring`, { method: 'PUT', body: { site_key_pages: ['/pricing'] } });
  const res = await project.ingest([
    customerEvent('hl-ava', { name: NAMES['hl-ava'], company: 'Acme Ltd', email: 'ava@acme.example' }),
    customerEvent('hl-ben', { name: NAMES['hl-ben'], company: 'Acme Ltd', email: 'ben@acme.example' }),
    customerEvent('hl-cy', { name: NAMES['hl-cy'], email: 'cy@gmail.com' }),
    customerEvent('hl-dee', { name: NAMES['hl-dee'] }),
    record('r-cy-form', 'hl-cy', 'submit_form', DAY),
    record('r-ava-site', 'hl-ava', 'access_site', 3 * HOUR, {
      web_access_log_id: 'v-ava',
      url: 'https://shop.example/pricing',
      title: 'Pricing plans',
    }),
    record('r-ava-form', 'hl-ava', 'submit_form', 2 * HOUR, { url: 'https://shop.example/contact' }),
    record('r-ben-click', 'hl-ben', 'mail_click', 30 * MINUTE, { postId: 'p-1', url: 'https://shop.example/offer' }),
  ]);
  expect(await res.json()).toMatchObject({ status: 1 });
  // The user's own record (not in the API's envelope).
  const me = (await (await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken`, { headers: project.auth })).json()) as { id: number };
  for (const width of [1440, 375]) {
    const [overdue, today] = tasksOf(width);
    const task = (title: string, customer: string, dueAgo: number) =>
      api(`/api/v1.7/app/${project.appId}/tasks`, {
        method: 'POST',
        body: { customer_id: customer, title, kind: 'call', assignee_id: me.id, due_at: new Date(Date.now() - dueAgo).toISOString() },
      });
    await task(overdue, 'hl-ava', DAY + HOUR);
    await task(today, 'hl-cy', MINUTE);
  }
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

const signedIn = (width: number, touch: boolean, lang: Lang) =>
  signedInPage(browser, base, PHONE, { width, touch, lang, pageErrors, contexts });

const names = (page: Page) => page.locator('main a[href*="/customers/hl-"]').allInnerTexts();
const combo = (page: Page, lang: Lang, label: string) => page.getByRole('combobox', { name: text(lang, label), exact: true });
/** An option of the open Ant Design select, as drawn (its accessible list is hidden). */
const option = (page: Page, lang: Lang, label: string) =>
  page.locator(`.ant-select-dropdown .ant-select-item-option[title="${text(lang, label)}"]`);

describe('the home page: who to call now', { timeout: 180_000 }, () => {
  for (const [width, touch, lang] of [
    [1440, false, 'en-US'],
    [375, true, 'zh-CN'],
  ] as const) {
    it(`at ${width} px (${lang}): hot leads with their reasons, accounts, today's tasks, the list by score`, async () => {
      const page = await signedIn(width, touch, lang);
      const noise = watchNoise(page);
      // Opening the project lands on its home.
      const projects = new ProjectsPage(page, lang);
      await projects.heading.waitFor();
      await projects.open('Provisioned');
      await page.waitForURL((u) => u.pathname === `/console/p/${project.appId}/home`);
      const home = new HomePage(page, lang);
      await home.heading.waitFor();
      // So does the project's bare address.
      await page.goto(`${base}/console/p/${project.appId}`);
      await page.waitForURL((u) => u.pathname === `/console/p/${project.appId}/home`);
      await home.heading.waitFor();

      // The hot leads: the latest rise first, each score with its reasons in words and its last signal.
      await expect.poll(() => home.leadIds(), POLL).toEqual(PEOPLE_ORDER);
      const ava = home.lead('hl-ava');
      await expect.poll(() => ava.locator('[data-lead-score]').innerText(), POLL).toMatch(/^\D+ ?(19\.9|20)$/);
      const reasons = await ava.locator('[data-score-reasons] li').allInnerTexts();
      expect(reasons[0]).toContain(text(lang, 'customers.score.reasons.formSite'));
      expect(reasons[1]).toContain(text(lang, 'customers.score.reasons.site_key_page', { page: 'Pricing plans' }));
      expect(await ava.locator('[data-signal]').innerText()).toContain(text(lang, 'customers.score.reasons.formSite'));
      expect(await home.lead('hl-ben').locator('[data-signal]').innerText()).toContain(text(lang, 'customers.score.reasons.mail_click'));
      await expect
        .poll(() => ava.getByRole('link', { name: NAMES['hl-ava'] }).getAttribute('href'), POLL)
        .toBe(`/console/p/${project.appId}/customers/hl-ava`);

      // Today's tasks: the overdue one first, each linking to its customer.
      const [overdue, today] = tasksOf(width);
      await home.task(overdue).waitFor();
      await home.task(today).waitFor();
      if (width === 375) expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      await expectAccessible(page, `the home page at ${width}`);
      await shot(page, `home-${width}`);
      // Ticked off where it stands: it leaves today's list.
      await home.task(overdue).click();
      await page.getByText(text(lang, 'tasks.markedDone', { title: overdue }), { exact: true }).waitFor();
      await expect.poll(() => home.task(overdue).count(), POLL).toBe(0);
      await home.task(today).waitFor();

      // Accounts: Ava and Ben of Acme are one account, their scores summed; Cy (a free-mail address) stays alone.
      await home.show('accounts');
      await page.waitForURL((u) => u.searchParams.get('view') === 'accounts');
      const acme = home.account('Acme Ltd');
      await acme.waitFor();
      expect(await acme.getByRole('link').allInnerTexts()).toEqual([NAMES['hl-ben'], NAMES['hl-ava']]);
      expect(await acme.innerText()).toContain(text(lang, 'home.people', { count: 2 }));
      await home.account(NAMES['hl-cy']).waitFor();
      await expectAccessible(page, `the accounts at ${width}`);
      await settledShot(page, `home-accounts-${width}`);

      // The customer list, one click away, by score: highest first, no score last, each with its largest reason.
      await new AppShell(page, lang).goTo('customers');
      await page.waitForURL((u) => u.pathname.endsWith('/customers'));
      await expect.poll(async () => (await names(page)).length, POLL).toBe(4);
      if (width === 1440) {
        await page.getByRole('columnheader', { name: text(lang, 'customers.columns.score') }).click();
      } else {
        await page.locator('.ant-select', { has: combo(page, lang, 'customers.sort.label') }).click();
        await option(page, lang, 'customers.sort.score_desc').click();
      }
      await page.waitForURL((u) => u.searchParams.get('sort') === 'score' && !u.searchParams.has('order'));
      await expect.poll(() => names(page), POLL).toEqual(SCORE_ORDER);
      await page.getByText(text(lang, 'customers.score.reasons.formSite'), { exact: true }).first().waitFor();
      await expectAccessible(page, `the customers by score at ${width}`);
      await shot(page, `customers-score-${width}`);

      // The customer's page: the score and its reasons near the top.
      await page.getByRole('link', { name: NAMES['hl-ava'], exact: true }).click();
      const detail = new CustomerPage(page, lang);
      await detail.heading(NAMES['hl-ava']).waitFor();
      const card = page.getByTestId('score-card');
      await expect.poll(() => card.locator('[data-score-reasons] li').count(), POLL).toBe(2);
      expect(await card.innerText()).toContain(text(lang, 'customers.score.reasons.site_key_page', { page: 'Pricing plans' }));
      await expectAccessible(page, `the customer's score at ${width}`);
      await shot(page, `customer-score-${width}`);

      noise.stop();
      expect(noise.failures).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  }
});
