// lanes: sqlite
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { CustomersPage } from '../../console/e2e/pages/CustomersPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { type ProvisionedProject, freePort, provisionProject, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * The customer list as a work surface in a real browser, against a real server process: the total
 * above the list, a pager with position and total, sorting (the table's headers at 1440 px, a select
 * at 375 px on a touch screen), the activity filter (a kind and a period), all of it in the URL and
 * restored by a reload; axe clean, no failed request and no console error.
 */
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
const pageErrors: string[] = [];
const NAMES = ['Olga', 'bruno', 'Amaya', 'Chidi', 'yuki', 'Dara', 'Émile', 'Farid', 'Greta', 'Hana', 'Ivo', 'Jun'];
/** 26 customers: the names above and numbered ones; every fourth visited the site yesterday. */
const COUNT = 26;
const nameOf = (i: number) => NAMES[i] ?? `Zed ${String(i).padStart(2, '0')}`;

beforeAll(async () => {
  const port = await freePort();
  processes.started(runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }));
  base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/healthz`);
  project = await provisionProject(base, processes.db.env, '13700000031');
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
  const events = [];
  for (let i = 0; i < COUNT; i++) {
    events.push({ event_type: 'create', domainType: 'Customer', domainId: `ls-${i}`, body: { name: nameOf(i) } });
    if (i % 4 === 0)
      events.push({
        event_type: 'create',
        domainType: 'BehaviourLog',
        domainId: `ls-visit-${i}`,
        body: { customerId: `ls-${i}`, action: 'access_site', when: yesterday, content: JSON.stringify({ web_access_log_id: `w-${i}` }) },
      });
  }
  const res = await fetch(`${base}/api/v1.7/app/${project.appId}/events`, {
    method: 'POST',
    headers: { 'x-app-secret': project.secret, 'content-type': 'application/json' },
    body: JSON.stringify(events),
  });
  expect(await res.json()).toMatchObject({ status: 1 });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function signedIn(width: number, touch: boolean): Promise<Page> {
  const context = await personContext(browser, { width, touch, pageErrors, timeout: 30_000 });
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.open(base);
  await signIn.signIn('13700000031', 'long enough pw');
  await page.waitForURL((u) => !u.pathname.includes('sign-in'));
  return page;
}

/** The machine is shared: a list may take a while to come. */
const POLL = { timeout: 20_000 };
const total = (page: Page) => page.getByTestId('customer-total');
const combo = (page: Page, label: string) => page.getByRole('combobox', { name: text('en-US', label), exact: true });
/** An option of the open Ant Design select, as drawn (its accessible list is hidden). */
const option = (page: Page, label: string) => page.locator(`.ant-select-dropdown .ant-select-item-option[title="${text('en-US', label)}"]`);
/** An Ant Design select by its label: the box to click and read. */
const select = (page: Page, label: string) => page.locator('.ant-select', { has: combo(page, label) });
/** The names the list shows, in order (the table's name links, or the cards'). */
const shownNames = (page: Page) => page.locator('main a[href*="/customers/ls-"]').allInnerTexts();
const collator = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);
const ascii = (names: string[]) => names.filter((n) => /^[\x20-\x7e]*$/.test(n));

describe('the customer list as a work surface', { timeout: 120_000 }, () => {
  it('at 1440 px: total, pager, header sorting and the activity filter, kept in the URL', async () => {
    const page = await signedIn(1440, false);
    const noise = watchNoise(page);
    const customers = new CustomersPage(page);
    await customers.open(base, project.appId);
    await expect
      .poll(() => total(page).innerText(), POLL)
      .toBe(text('en-US', 'customers.total', { count: COUNT, formatted: String(COUNT) }));
    // A pager with the position and the total.
    await page.getByText(text('en-US', 'customers.range', { from: '1', to: '20', total: String(COUNT) })).waitFor();
    await page.getByRole('listitem', { name: '2' }).click();
    await page.waitForURL((u) => u.searchParams.get('page') === '2');
    await expect.poll(async () => (await shownNames(page)).length, POLL).toBe(COUNT - 20);

    // Sorting by the name header: A to Z, then Z to A; a new order starts from the first page.
    await page.getByRole('columnheader', { name: text('en-US', 'customers.columns.name') }).click();
    await page.waitForURL((u) => u.searchParams.get('sort') === 'name' && !u.searchParams.has('page'));
    await expect.poll(async () => ascii(await shownNames(page)).slice(0, 3), POLL).toEqual(['Amaya', 'bruno', 'Chidi']);
    const az = ascii(await shownNames(page));
    expect(az).toEqual([...az].sort(collator));
    await page.getByRole('columnheader', { name: text('en-US', 'customers.columns.name') }).click();
    await page.waitForURL((u) => u.searchParams.get('order') === 'desc');
    await expect.poll(async () => ascii(await shownNames(page))[0], POLL).toBe('Zed 25');
    await expectAccessible(page, 'customers sorted by name at 1440');

    // The activity filter: site visits in the last 7 days.
    await select(page, 'customers.activity.label').click();
    await option(page, 'customers.activity.site_visit').click();
    await select(page, 'customers.period.label').click();
    await option(page, 'customers.period.7d').click();
    await page.waitForURL((u) => u.searchParams.get('activity') === 'site_visit' && u.searchParams.get('period') === '7d');
    const visitors = Array.from({ length: COUNT }, (_, i) => i)
      .filter((i) => i % 4 === 0)
      .map(nameOf);
    await expect.poll(() => total(page).innerText(), POLL).toBe(text('en-US', 'customers.total', { count: 7, formatted: '7' }));
    expect((await shownNames(page)).sort()).toEqual([...visitors].sort());
    await shot(page, 'customers-sorted-filtered-1440');

    // A reload (or a shared link) shows the same list.
    const url = page.url();
    await page.reload();
    await customers.heading.waitFor();
    expect(page.url()).toBe(url);
    await expect.poll(() => total(page).innerText(), POLL).toBe(text('en-US', 'customers.total', { count: 7, formatted: '7' }));
    const activitySelect = select(page, 'customers.activity.label');
    expect(await activitySelect.innerText()).toContain(text('en-US', 'customers.activity.site_visit'));
    expect((await shownNames(page)).sort()).toEqual([...visitors].sort());
    await expectAccessible(page, 'customers filtered by activity at 1440');
    noise.stop();
    expect(noise.failures).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('at 375 px on a touch screen: a sort select, the total and the pager', async () => {
    const page = await signedIn(375, true);
    const noise = watchNoise(page);
    const customers = new CustomersPage(page);
    await customers.open(base, project.appId, '?sort=name');
    await expect
      .poll(() => total(page).innerText(), POLL)
      .toBe(text('en-US', 'customers.total', { count: COUNT, formatted: String(COUNT) }));
    await expect.poll(async () => ascii(await shownNames(page)).slice(0, 2), POLL).toEqual(['Amaya', 'bruno']);
    const sort = select(page, 'customers.sort.label');
    await sort.click();
    await option(page, 'customers.sort.created_asc').click();
    await page.waitForURL((u) => u.searchParams.get('sort') === 'created' && u.searchParams.get('order') === 'asc');
    await expect.poll(async () => (await shownNames(page))[0], POLL).toBe(nameOf(0));
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    expect(width).toBeLessThanOrEqual(375);
    await expectAccessible(page, 'customers at 375');
    await shot(page, 'customers-sorted-375');
    noise.stop();
    expect(noise.failures).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
