// lanes: sqlite
import fs from 'node:fs';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { AppShell } from '../../console/e2e/pages/AppShell.ts';
import { HomePage } from '../../console/e2e/pages/HomePage.ts';
import { CustomersPage } from '../../console/e2e/pages/CustomersPage.ts';
import { ImportWizard } from '../../console/e2e/pages/ImportWizard.ts';
import { LinksPage } from '../../console/e2e/pages/LinksPage.ts';
import { MembersPage } from '../../console/e2e/pages/MembersPage.ts';
import { ProjectsPage } from '../../console/e2e/pages/ProjectsPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { PHONE_UA, launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { freePort, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * The whole adoption story in a real browser against a real server process on a fresh database:
 * the first account (with the setup code) makes a UK project, invites a Sales colleague, who accepts
 * on a phone; the owner imports 1,000 customers from seven countries with their numbers written as
 * people write them, sorts and filters the list (kept in the URL), assigns every customer matching a
 * search to the colleague in one job, shares a deck with one of them, who reads two pages of it on
 * a phone; the customer's timeline then shows that reading as one entry naming the pages read. Each
 * page axe clean, with no failed request and no console error.
 */
const PASSWORD = 'a long enough password';
const SETUP_CODE = 'console-walkthrough-setup-code';
const PROJECT = 'Global Sales';
const OWNER = 'owner@global.example';
const COLLEAGUE = { email: 'sam@global.example', name: 'Sam Sales' };
const DECK = new URL('../fixtures/files/deck.pdf', import.meta.url).pathname;

/** Per country: first names, last names (12 × 12 names, each unique), a company and how its numbers are written. */
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const COUNTRIES: { code: string; first: string[]; last: string[]; company: string; phone(k: number): string }[] = [
  {
    code: 'GB',
    first: ['Oliver', 'Amelia', 'Harry', 'Isla', 'George', 'Ava', 'Noah', 'Lily', 'Jack', 'Freya', 'Leo', 'Ivy'],
    last: ['Smith', 'Jones', 'Taylor', 'Brown', 'Evans', 'Walker', 'Wright', 'Hughes', 'Green', 'Hall', 'Wood', 'Clarke'],
    company: 'Thames Ventures',
    // National (the project's region) and international forms.
    phone: (k) => (k % 2 ? `07911 ${pad(100000 + k, 6)}` : `+44 7911 ${pad(100000 + k, 6)}`),
  },
  {
    code: 'US',
    first: ['Liam', 'Emma', 'Mason', 'Olivia', 'Ethan', 'Sophia', 'Logan', 'Mia', 'Lucas', 'Harper', 'Elijah', 'Ella'],
    last: ['Johnson', 'Williams', 'Miller', 'Davis', 'Garcia', 'Wilson', 'Moore', 'Anderson', 'Thomas', 'Jackson', 'White', 'Harris'],
    company: 'Bayside Labs',
    phone: (k) => (k % 2 ? `+1 (650) 253-${pad(k, 4)}` : `+1 650-253-${pad(k, 4)}`),
  },
  {
    code: 'DE',
    first: ['Lukas', 'Hannah', 'Felix', 'Lena', 'Jonas', 'Marie', 'Paul', 'Lea', 'Finn', 'Clara', 'Elias', 'Greta'],
    last: ['Mueller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Koch', 'Richter'],
    company: 'Spree Maschinenbau',
    phone: (k) => (k % 2 ? `+49 30 9018${pad(k, 4)}` : `0049 151 2345${pad(k, 4)}`),
  },
  {
    code: 'IN',
    first: ['Aarav', 'Diya', 'Vivaan', 'Ananya', 'Aditya', 'Isha', 'Arjun', 'Kavya', 'Rohan', 'Priya', 'Kabir', 'Meera'],
    last: ['Sharma', 'Patel', 'Gupta', 'Singh', 'Kumar', 'Reddy', 'Iyer', 'Nair', 'Das', 'Joshi', 'Mehta', 'Rao'],
    company: 'Ganges Textiles',
    phone: (k) => (k % 2 ? `+91 98765 ${pad(k, 5)}` : `+91-98765-${pad(k + 500, 5)}`),
  },
  {
    code: 'JP',
    first: ['Yuki', 'Haruto', 'Sora', 'Aoi', 'Ren', 'Mei', 'Kaito', 'Hina', 'Riku', 'Yui', 'Sota', 'Akari'],
    last: ['Tanaka', 'Suzuki', 'Takahashi', 'Watanabe', 'Ito', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Kato', 'Yoshida', 'Yamada', 'Sasaki'],
    company: 'Sakura Trading',
    phone: (k) => (k % 2 ? `+81 90-1234-${pad(k, 4)}` : `+81 (0)80 5678 ${pad(k, 4)}`),
  },
  {
    code: 'BR',
    first: ['Miguel', 'Helena', 'Arthur', 'Alice', 'Heitor', 'Laura', 'Bernardo', 'Valentina', 'Davi', 'Sofia', 'Gael', 'Manuela'],
    last: ['Silva', 'Santos', 'Oliveira', 'Souza', 'Lima', 'Pereira', 'Costa', 'Ferreira', 'Almeida', 'Carvalho', 'Gomes', 'Ribeiro'],
    company: 'Ipanema Foods',
    phone: (k) => (k % 2 ? `+55 11 91234-${pad(k, 4)}` : `+55 (21) 98765-${pad(k, 4)}`),
  },
  {
    code: 'CN',
    first: ['Wei', 'Fang', 'Jun', 'Xiu', 'Hao', 'Lan', 'Qiang', 'Ying', 'Bo', 'Hui', 'Tao', 'Ning'],
    last: ['Wang', 'Li', 'Zhang', 'Liu', 'Chen', 'Yang', 'Huang', 'Zhao', 'Wu', 'Zhou', 'Xu', 'Sun'],
    company: 'Pearl River Trading',
    phone: (k) => (k % 2 ? `+86 138 0013 ${pad(k, 4)}` : `+86 139-0000-${pad(k, 4)}`),
  },
];
const ROWS = 1000;
interface Person {
  name: string;
  phone: string;
  email: string;
  company: string;
  country: string;
}
/** Row i: the country i mod 7, the (i div 7)-th name of that country. */
const PEOPLE: Person[] = Array.from({ length: ROWS }, (_, i) => {
  const c = COUNTRIES[i % COUNTRIES.length] as (typeof COUNTRIES)[number];
  const k = Math.floor(i / COUNTRIES.length);
  const first = c.first[k % 12] as string;
  const last = c.last[Math.floor(k / 12)] as string;
  return {
    name: `${first} ${last}`,
    phone: c.phone(k),
    email: `${first}.${last}@${c.code.toLowerCase()}-mail.example`.toLowerCase(),
    company: `${c.company} ${(k % 9) + 1}`,
    country: c.code,
  };
});
const csvCell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const CSV = ['Name,Mobile,Email,Company', ...PEOPLE.map((p) => [p.name, p.phone, p.email, p.company].map(csvCell).join(','))].join('\r\n');
/** Names compared as the list sorts them: case-insensitively (all ASCII here). */
const byName = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);
const KEYWORD = 'Sakura';
const MATCHING = PEOPLE.filter((p) => p.company.includes(KEYWORD));
/** The customer the deck is shared with: one of those assigned to the colleague. */
const READER = 'Aoi Tanaka';

const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let owner: Page;
let appId = '';
let inviteUrl = '';
let shareUrl = '';
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];

async function contextFor(width: number, touch: boolean): Promise<BrowserContext> {
  const context = await personContext(browser, { width, touch, pageErrors, timeout: 30_000 });
  contexts.push(context);
  return context;
}

/** The machine is shared: a list or a job may take a while. */
const POLL = { timeout: 60_000, interval: 250 };
const total = (page: Page) => page.getByTestId('customer-total');
const totalText = (count: number) => text('en-US', 'customers.total', { count, formatted: count.toLocaleString('en-US') });
/** The names the list shows, in order (the table's name links, or the cards'). */
const shownNames = (page: Page) => page.locator('main a[href*="/customers/"]').allInnerTexts();

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  // The test data is what it says: 1,000 different people, numbers and e-mail addresses.
  for (const key of ['name', 'phone', 'email'] as const) expect(new Set(PEOPLE.map((p) => p[key])).size).toBe(ROWS);
  expect(MATCHING.map((p) => p.name)).toContain(READER);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  processes.started(
    runCli(['serve'], {
      ...processes.db.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PUBLIC_BASE_URL: base,
      SETUP_CODE,
    }),
  );
  await waitForOk(`${base}/healthz`);
  browser = await launchChromium();
  owner = await (await contextFor(1440, false)).newPage();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

describe('a sales team adopts the console', { timeout: 180_000 }, () => {
  it('the first account (with the setup code) signs up at 1440 px and makes a project in the United Kingdom', async () => {
    const noise = watchNoise(owner);
    const signIn = new SignInPage(owner);
    await signIn.open(base);
    await signIn.signUp(OWNER, 'Olivia Owner', PASSWORD, SETUP_CODE);
    const projects = new ProjectsPage(owner);
    await projects.heading.waitFor();
    await expectAccessible(owner, 'projects, none yet');
    await projects.create(PROJECT, 'Our sales team', 'GB');
    // A project opens on its home page (who to call now); the customers are one click away.
    await owner.waitForURL(/\/console\/p\/[^/]+\/home/);
    await new HomePage(owner).heading.waitFor();
    appId = /\/console\/p\/([^/]+)\//.exec(owner.url())?.[1] ?? '';
    expect(appId).not.toBe('');
    await new AppShell(owner, 'en-US').goTo('customers');
    await new CustomersPage(owner).heading.waitFor();
    await expectAccessible(owner, 'an empty customer list');
    await shot(owner, 'walkthrough-empty-list-1440');
    noise.stop();
    expect(noise.failures).toEqual([]);
  });

  it('the owner invites a colleague as Sales from the members page and copies the link', async () => {
    const noise = watchNoise(owner);
    await new AppShell(owner, 'en-US').goTo('members');
    const members = new MembersPage(owner);
    await members.heading.waitFor();
    inviteUrl = await members.invite(COLLEAGUE.email, 'Sales');
    expect(inviteUrl).toMatch(new RegExp(`^${base}/console/invite/[A-Za-z0-9_-]{43}$`));
    await expectAccessible(owner, 'the invitation link to copy');
    await shot(owner, 'walkthrough-invitation-1440');
    await members.closeLink();
    await members.invitation(COLLEAGUE.email).waitFor();
    noise.stop();
    expect(noise.failures).toEqual([]);
  });

  it('the colleague opens the link on a phone, creates an account and lands in the project', async () => {
    const page = await (await contextFor(375, true)).newPage();
    const noise = watchNoise(page);
    await page.goto(inviteUrl);
    await page.getByRole('heading', { level: 1, name: text('en-US', 'members.accept.title', { project: PROJECT }) }).waitFor();
    await expectAccessible(page, 'the invitation on a phone');
    await shot(page, 'walkthrough-accept-375');
    await page.getByLabel(text('en-US', 'members.accept.nickname')).fill(COLLEAGUE.name);
    await page.getByLabel(text('en-US', 'members.accept.password')).fill(PASSWORD);
    await page.getByRole('button', { name: text('en-US', 'members.accept.create') }).click();
    await page.waitForURL(`${base}/console/p/${appId}/home`);
    await new HomePage(page).heading.waitFor();
    await new AppShell(page, 'en-US').goTo('customers');
    await new CustomersPage(page).heading.waitFor();
    // The project is theirs to see: named in the phone's header.
    await new AppShell(page, 'en-US').currentProject(PROJECT).waitFor();
    await expect.poll(() => total(page).innerText(), POLL).toBe(totalText(0));
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await expectAccessible(page, "the colleague's empty list on a phone");
    await shot(page, 'walkthrough-colleague-landed-375');
    noise.stop();
    expect(noise.failures).toEqual([]);
    await page.close();
  });

  it('the owner imports 1,000 customers from seven countries, their numbers as people write them', async () => {
    const noise = watchNoise(owner);
    const customers = new CustomersPage(owner);
    await customers.open(base, appId);
    const wizard = new ImportWizard(owner);
    await wizard.importButton.click();
    await wizard.drawer.waitFor();
    await wizard.chooseFile('international.csv', CSV);
    await wizard.button('common.actions.next').click();
    await wizard.columnSelect('Company').waitFor();
    expect(await wizard.mappedTo('Name')).toBe(`${text('en-US', 'customers.fields.name')} *`);
    expect(await wizard.mappedTo('Mobile')).toBe(text('en-US', 'customers.fields.phone'));
    expect(await wizard.mappedTo('Email')).toBe(text('en-US', 'customers.fields.email'));
    expect(await wizard.mappedTo('Company')).toBe(text('en-US', 'customers.fields.company'));
    await expectAccessible(owner, 'import: columns');
    await wizard.button('customers.import.check').click();
    await wizard.drawer
      .getByText(text('en-US', 'customers.import.dryRunDone', { count: ROWS, file: 'international.csv' }))
      .waitFor({ timeout: 90_000 });
    expect(await wizard.counts('wouldDo')).toEqual({ created: ROWS, updated: 0, skipped: 0, failed: 0 });
    await wizard.button('customers.import.run').click();
    const summary = wizard.summary('international.csv', { created: ROWS, updated: 0, skipped: 0, failed: 0 });
    await wizard.drawer.getByText(summary).waitFor({ timeout: 120_000 });
    expect(await wizard.counts('did')).toEqual({ created: ROWS, updated: 0, skipped: 0, failed: 0 });
    await expectAccessible(owner, 'import: summary');
    await shot(owner, 'walkthrough-import-summary-1440');
    await wizard.button('customers.import.finish').click();
    await wizard.drawer.waitFor({ state: 'hidden' });
    await expect.poll(() => total(owner).innerText(), POLL).toBe(totalText(ROWS));
    noise.stop();
    expect(noise.failures).toEqual([]);
  });

  it('sorts by name, filters by a keyword, and keeps both in the URL', async () => {
    const noise = watchNoise(owner);
    const customers = new CustomersPage(owner);
    await customers.open(base, appId);
    await expect.poll(() => total(owner).innerText(), POLL).toBe(totalText(ROWS));
    await owner.getByRole('columnheader', { name: text('en-US', 'customers.columns.name') }).click();
    await owner.waitForURL((u) => u.searchParams.get('sort') === 'name');
    const sorted = PEOPLE.map((p) => p.name).sort(byName);
    await expect.poll(async () => (await shownNames(owner)).slice(0, 3), POLL).toEqual(sorted.slice(0, 3));
    await expectAccessible(owner, '1,000 customers sorted by name');
    await shot(owner, 'walkthrough-sorted-1440');

    await customers.searchFor(KEYWORD);
    await owner.waitForURL((u) => u.searchParams.get('q') === KEYWORD && u.searchParams.get('sort') === 'name');
    const matching = MATCHING.map((p) => p.name).sort(byName);
    await expect.poll(() => total(owner).innerText(), POLL).toBe(totalText(MATCHING.length));
    await expect.poll(async () => (await shownNames(owner))[0], POLL).toBe(matching[0]);

    // A reload (or the address sent to a colleague) shows the same list.
    const url = owner.url();
    await owner.reload();
    await customers.heading.waitFor();
    expect(owner.url()).toBe(url);
    await expect.poll(() => total(owner).innerText(), POLL).toBe(totalText(MATCHING.length));
    await expect.poll(async () => (await shownNames(owner)).slice(0, 3), POLL).toEqual(matching.slice(0, 3));
    expect(await customers.search.inputValue()).toBe(KEYWORD);
    await expectAccessible(owner, 'customers filtered by a keyword');
    await shot(owner, 'walkthrough-filtered-1440');
    noise.stop();
    expect(noise.failures).toEqual([]);
  });

  it('assigns every customer matching the search to the colleague in one job; they see them on their phone', async () => {
    const noise = watchNoise(owner);
    await owner.locator('thead .ant-checkbox-input').click();
    const counted = { count: MATCHING.length, formatted: String(MATCHING.length) };
    await owner.getByRole('button', { name: text('en-US', 'customers.bulk.selectAllMatchingN', counted) }).click();
    const toolbar = owner.getByRole('toolbar', { name: text('en-US', 'customers.bulk.toolbar') });
    await toolbar.getByText(text('en-US', 'customers.bulk.allMatching')).waitFor();
    await toolbar.getByRole('button', { name: text('en-US', 'customers.bulk.actions.assign') }).click();
    const label = text('en-US', 'customers.bulk.pick.assign.label');
    const dialog = owner.getByRole('dialog').filter({ has: owner.getByRole('combobox', { name: label }) });
    await dialog.getByRole('combobox', { name: label }).click();
    await owner.locator('.ant-select-item-option', { hasText: COLLEAGUE.name }).click();
    await expectAccessible(owner, 'the assign dialog');
    await dialog.getByRole('button', { name: text('en-US', 'customers.bulk.pick.ok') }).click();
    const drawer = owner.locator('.ant-drawer-content');
    await drawer.getByText(text('en-US', 'customers.bulk.progress.status.done')).waitFor({ timeout: 120_000 });
    const stat = (name: string) =>
      drawer
        .locator('.ant-statistic')
        .filter({ hasText: text('en-US', `customers.bulk.progress.${name}`) })
        .locator('.ant-statistic-content-value')
        .innerText();
    expect({ done: await stat('done'), failed: await stat('failed') }).toEqual({ done: String(MATCHING.length), failed: '0' });
    await expectAccessible(owner, 'the bulk job done');
    await shot(owner, 'walkthrough-assigned-1440');
    await owner.locator('.ant-drawer-close').click();
    noise.stop();
    expect(noise.failures).toEqual([]);

    // The colleague's own list, on their phone, sorted by name: exactly those customers.
    const page = await (await contextFor(375, true)).newPage();
    const phoneNoise = watchNoise(page);
    const signIn = new SignInPage(page);
    await signIn.open(base);
    await signIn.signIn(COLLEAGUE.email, PASSWORD);
    await page.waitForURL((u) => !u.pathname.includes('sign-in'));
    const customers = new CustomersPage(page);
    await customers.open(base, appId, '?sort=name');
    await expect.poll(() => total(page).innerText(), POLL).toBe(totalText(MATCHING.length));
    const matching = MATCHING.map((p) => p.name).sort(byName);
    await expect.poll(async () => (await shownNames(page)).slice(0, 3), POLL).toEqual(matching.slice(0, 3));
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await expectAccessible(page, "the colleague's list on a phone");
    await shot(page, 'walkthrough-colleague-list-375');
    phoneNoise.stop();
    expect(phoneNoise.failures).toEqual([]);
    await page.close();
  });

  it('the owner shares a deck with one of those customers', async () => {
    const noise = watchNoise(owner);
    await new AppShell(owner, 'en-US').goTo('links');
    const links = new LinksPage(owner);
    await links.heading.waitFor();
    await links.uploadDeck(DECK);
    await links.fillName('Tokyo proposal');
    await links.fillTitle('Global Sales: our proposal');
    await links.directTo(READER);
    await expectAccessible(owner, 'the new link form');
    shareUrl = await links.create();
    expect(shareUrl).toMatch(new RegExp(`^${base}/l/[A-Za-z0-9_-]{22}$`));
    await expectAccessible(owner, 'the share dialog');
    await shot(owner, 'walkthrough-share-1440');
    await links.shareDialog.getByRole('button', { name: /close/i }).click();
    await links.link('Tokyo proposal').waitFor();
    noise.stop();
    expect(noise.failures).toEqual([]);
  });

  it('the customer reads pages 1 and 2 on a phone', async () => {
    const reader = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      userAgent: PHONE_UA,
      // axe-core is injected with addScriptTag.
      bypassCSP: true,
    });
    contexts.push(reader);
    const page = await reader.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    const noise = watchNoise(page);
    const opening = page.waitForRequest((r) => r.url().endsWith('/events') && (r.postData() ?? '').includes('"type":"open"'));
    await page.goto(shareUrl);
    await opening;
    expect(await page.title()).toBe('Global Sales: our proposal');
    await expectAccessible(page, 'the viewer on a phone');
    // Dwell is the point here: page 1 for ~2.5 s, then the next page for ~1.5 s.
    await page.waitForTimeout(2500);
    await shot(page, 'walkthrough-viewer-390');
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(1500);
    noise.stop();
    expect(noise.failures).toEqual([]);
    await page.close();
    await reader.close();
  });

  it("the customer's timeline shows the reading as one entry with pages 1 and 2", async () => {
    const noise = watchNoise(owner);
    const customers = new CustomersPage(owner);
    await customers.open(base, appId, `?q=${encodeURIComponent(READER)}`);
    await customers.customerLink(READER).click();
    await owner.getByRole('heading', { level: 1, name: READER }).waitFor();
    const reading = owner.locator('[data-behaviour="link_view_log"]');
    // The reading's page turns arrive as the phone leaves: the entry fills in (the page follows the live stream; a reload is the fallback).
    let reloads = 0;
    await expect
      .poll(async () => {
        const entry = (await reading.count()) === 1 ? ((await reading.textContent()) ?? '') : '';
        if (!entry.includes(text('en-US', 'customer.pageN', { n: 2 })) && ++reloads % 20 === 0) await owner.reload();
        return entry.includes(text('en-US', 'customer.pageN', { n: 2 }));
      }, POLL)
      .toBe(true);
    expect(await reading.count()).toBe(1);
    const entry = (await reading.textContent()) ?? '';
    expect(entry).toContain(text('en-US', 'customer.actions.link_view_log', { name: 'Tokyo proposal' }));
    expect(entry).toContain(text('en-US', 'customer.pageN', { n: 1 }));
    expect(entry).toContain(text('en-US', 'customer.pageN', { n: 2 }));
    expect(entry).not.toContain(text('en-US', 'customer.pageN', { n: 3 }));
    // Its page turns and its leave are inside that entry, not beside it.
    expect(await owner.locator('[data-behaviour="file_view_duration"], [data-behaviour="link_leave_log"]').count()).toBe(0);
    await expectAccessible(owner, "the customer's timeline");
    await shot(owner, 'walkthrough-timeline-1440');
    noise.stop();
    expect(noise.failures).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
