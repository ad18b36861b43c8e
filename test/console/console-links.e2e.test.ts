// lanes: sqlite
import fs from 'node:fs';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PHONE_UA, launchChromium, personContext } from '../helpers/browser.ts';
import { expectAccessible, settledShot, shot } from '../helpers/console-checks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonName, text } from '../../console/e2e/locale.ts';
import { AppShell } from '../../console/e2e/pages/AppShell.ts';
import { CustomersPage } from '../../console/e2e/pages/CustomersPage.ts';
import { HomePage } from '../../console/e2e/pages/HomePage.ts';
import { LinksPage } from '../../console/e2e/pages/LinksPage.ts';
import { ProjectsPage } from '../../console/e2e/pages/ProjectsPage.ts';
import { SettingsPage } from '../../console/e2e/pages/SettingsPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { WebhooksPage } from '../../console/e2e/pages/WebhooksPage.ts';
import { inSight } from '../../console/e2e/sight.ts';
import { freePort, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';
import { startReceiver } from '../helpers/receiver.ts';

/**
 * The console's link, settings and webhook pages in a real browser (Debian's chromium, driven by
 * playwright-core) against a real server process on a fresh database: a deck uploaded and shared
 * with a customer, the customer reading it in another browser, the salesperson told at once and
 * shown who read which page; the project secret replaced; a webhook added and tested. Each page at
 * 1440 px and at 375 px on a touch screen, checked by axe; screenshots go to CONSOLE_SHOTS_DIR
 * (default /tmp/console-shots; `npm run screenshots` writes docs/screenshots/).
 */
const PASSWORD = 'a long enough password';
/** The first account's setup code: an operator reads it in the log; the test chooses it (SETUP_CODE). */
const SETUP_CODE = 'console-links-setup-code';
const DECK = new URL('../fixtures/files/deck.pdf', import.meta.url).pathname;

const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
let owner: Page;
let phone: Page;
let appId = '';
let shareUrl = '';
const receiver = await startReceiver();
const pageErrors: string[] = [];

const contextFor = (width: number, touch: boolean): Promise<BrowserContext> =>
  personContext(browser, { width, touch, timezoneId: 'Europe/Berlin', pageErrors, permissions: ['clipboard-read', 'clipboard-write'] });

/** The API as the owner calls it (a session of its own, signed in as the console does): the answer's data. */
async function asOwner<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const session = await fetch(`${base}/svcuser/console/session`, {
    method: 'POST',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'owner@links.example', password: PASSWORD }),
  });
  const { access_token } = (await session.json()) as { access_token: string };
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${access_token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  const body = (await res.json()) as { status: number; data: T };
  expect(body.status, JSON.stringify(body)).toBe(1);
  return body.data;
}

type LinkRecord = Record<string, unknown> & { id: string; name: string | null };
/** The project's links as the API answers them. */
const ownerLinks = () => asOwner<LinkRecord[]>(`/api/v1.7/app/${appId}/links`);

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  const port = await freePort();
  processes.started(
    runCli(['serve'], {
      ...processes.db.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      LIVE_POLL_MS: '100',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      // A fresh database: the owner, its first account (made with the setup code), is the server's administrator.
      SETUP_CODE,
      // The test's webhook receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE: 'true',
    }),
  );
  base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/healthz`);
  browser = await launchChromium();
  desktop = await contextFor(1440, false);
  mobile = await contextFor(375, true);
  owner = await desktop.newPage();
  phone = await mobile.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver.close();
});

describe('links, settings and webhooks in the console', { timeout: 90_000 }, () => {
  it('the owner signs up, makes a project and a customer', async () => {
    const signIn = new SignInPage(owner);
    await signIn.open(base);
    await signIn.signUp('owner@links.example', 'Olivia Owner', PASSWORD, SETUP_CODE);
    await new ProjectsPage(owner).heading.waitFor();
    await new ProjectsPage(owner).create('Acme Sales', 'Links and integrations', 'CN');
    // A new project opens on its home; its customers are one click away.
    await new HomePage(owner).heading.waitFor();
    await new AppShell(owner, 'en-US').goTo('customers');
    const customers = new CustomersPage(owner);
    await customers.heading.waitFor();
    appId = new URL(owner.url()).pathname.split('/')[3] as string;
    await customers.fillNew({ name: 'Ada Lovelace', company: 'Analytical Engines' });
    await customers.save();
    await customers.customerLink('Ada Lovelace').waitFor();
  });

  it('uploads a PDF, creates a link for the customer, and gets its share address and QR code', async () => {
    await new AppShell(owner, 'en-US').goTo('links');
    const links = new LinksPage(owner);
    await links.heading.waitFor();
    await owner.getByText(text('en-US', 'links.empty')).waitFor();
    await expectAccessible(owner, 'links (empty)');
    await links.uploadDeck(DECK);
    // The file's name is the link's until the salesperson names it.
    await links.fillName('Pricing deck');
    // What Ada will see, apart from the team's own name for the link.
    await links.fillTitle('Acme pricing 2027');
    await links.directTo('Ada');
    await expectAccessible(owner, 'new link form');
    shareUrl = await links.create();
    expect(shareUrl).toMatch(new RegExp(`^${base}/l/[A-Za-z0-9_-]{22}$`));
    await links.shareDialog.locator('canvas').first().waitFor();
    await expectAccessible(owner, 'share dialog');
    await links.shareDialog.getByRole('button', { name: text('en-US', 'links.copy') }).click();
    await owner.getByText(text('en-US', 'links.copied')).waitFor();
    expect(
      await owner.evaluate(() =>
        (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
      ),
    ).toBe(shareUrl);
    await links.shareDialog.getByRole('button', { name: /close/i }).click();
    await links.link('Pricing deck').waitFor();
    await expectAccessible(owner, 'links');
  });

  it('the customer reads it in another browser: the console tells the owner at once and shows the view log and the time per page', async () => {
    const reader = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      userAgent: PHONE_UA,
    });
    try {
      const page = await reader.newPage();
      const opening = page.waitForRequest((r) => r.url().endsWith('/events') && (r.postData() ?? '').includes('"type":"open"'));
      await page.goto(shareUrl);
      await opening;
      expect(await page.title()).toBe('Acme pricing 2027');
      expect(await page.content()).not.toContain('Pricing deck');
      // The live alert: the customer opened the link, named in the owner's console.
      await owner.locator('.ant-notification-notice').filter({ hasText: 'Ada Lovelace' }).first().waitFor();
      await page.waitForTimeout(2500);
      await page.keyboard.press('ArrowRight');
      await page.waitForTimeout(1500);
      await page.close();
    } finally {
      await reader.close();
    }
    const links = new LinksPage(owner);
    await links.link('Pricing deck').click();
    await links.detail.waitFor();
    await links.viewLogs().first().waitFor();
    await links.viewLogs().first().getByText('Ada Lovelace').waitFor();
    // The reading analytics first: the KPI cards, and the time on each page (ECharts, loaded on demand).
    await links.kpi('views').waitFor();
    await links.pageChart.locator('canvas').waitFor();
    await expectAccessible(owner, 'link detail');
    await shot(owner, 'link-1440');
    await links.detail.getByRole('button', { name: text('en-US', 'links.detail.back') }).click();
    await links.detail.waitFor({ state: 'hidden' });
    await shot(owner, 'links-1440');
  });

  it('a link readers accept an agreement for, whose e-mail gate refuses a domain: the form sends both, its details show them', async () => {
    const links = new LinksPage(owner);
    await links.uploadDeck(DECK);
    await links.fillName('Deck under NDA');
    await links.form.getByLabel(text('en-US', 'links.form.emailGate')).click();
    await links.form.getByLabel(text('en-US', 'linkGates.form.denyList')).fill('rival.example, *.rival.example');
    await links.form.getByLabel(text('en-US', 'linkGates.form.agreement')).fill('Keep this deck to yourself.');
    const ndaUrl = await links.create();
    await links.shareDialog.getByRole('button', { name: /close/i }).click();
    await links.link('Deck under NDA').click();
    await links.detail.waitFor();
    await links.settings.getByText('rival.example, *.rival.example').waitFor();
    expect(await links.settings.locator('[data-agreement-version]').getAttribute('data-agreement-version')).toBe('1');
    const acceptances = links.detail
      .locator('.ant-card')
      .filter({ has: owner.getByRole('heading', { name: text('en-US', 'linkGates.detail.acceptances') }) });
    await acceptances.getByText(text('en-US', 'linkGates.detail.acceptancesEmpty')).waitFor();
    // A reader gives their address, accepts the agreement and sees the deck; the table then names them.
    const reader = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, userAgent: PHONE_UA });
    try {
      const page = await reader.newPage();
      await page.goto(ndaUrl);
      await page.locator('input[name="email"]').fill('grace@example.com');
      await page.getByRole('button', { name: 'Continue' }).tap();
      expect(await page.locator('#agreement').textContent()).toBe('Keep this deck to yourself.');
      await page.getByLabel('I have read and agree to this agreement').check();
      await page.getByRole('button', { name: 'I agree' }).tap();
      await page.locator('#page-1 img').waitFor();
    } finally {
      await reader.close();
    }
    // The page loaded afresh (the console keeps what it read for half a minute): the address keeps the
    // link's details open, and they show the acceptance.
    await owner.reload();
    await links.detail.waitFor();
    const accepted = acceptances.locator('tbody tr').filter({ hasText: 'grace@example.com' });
    await accepted.waitFor();
    expect(await accepted.locator('td').allInnerTexts()).toEqual(expect.arrayContaining(['grace@example.com', '1']));
    await expectAccessible(owner, 'link detail with an agreement');
    await links.detail.getByRole('button', { name: text('en-US', 'links.detail.back') }).click();
    await links.detail.waitFor({ state: 'hidden' });
  });

  it('edits the link made first: a new title, the watermark, a refused domain and an agreement; its details and the API have them', async () => {
    const links = new LinksPage(owner);
    await links.link('Pricing deck').click();
    await links.detail.waitFor();
    expect(await links.setting(text('en-US', 'links.form.publicTitle')).innerText()).toBe('Acme pricing 2027');
    const form = await links.edit('Pricing deck');
    // The form starts from the link as it is: its title, its customer, its switches.
    const title = form.getByLabel(text('en-US', 'links.form.publicTitle'));
    expect(await title.inputValue()).toBe('Acme pricing 2027');
    await form.locator('.ant-select-selection-item').filter({ hasText: 'Ada Lovelace' }).waitFor();
    expect(await form.getByLabel(text('en-US', 'links.form.watermark')).getAttribute('aria-checked')).toBe('false');
    await title.fill('Acme pricing 2028');
    await form.getByLabel(text('en-US', 'links.form.watermark')).click();
    await form.getByLabel(text('en-US', 'links.form.emailGate')).click();
    await form.getByLabel(text('en-US', 'linkGates.form.denyList')).fill('rival.example');
    await form.getByLabel(text('en-US', 'linkGates.form.agreement')).fill('These prices are for Analytical Engines only.');
    await expectAccessible(owner, 'link edit form');
    await shot(owner, 'link-edit-1440');
    // Meanwhile a colleague's change through the API (the form does not show it): Save sends only what
    // the form changed, so it stays.
    const first = (await ownerLinks()).find((l) => l.name === 'Pricing deck') as LinkRecord;
    await asOwner(`/api/v1.7/app/${appId}/link/${first.id}`, { method: 'PUT', body: { allow_download: 1 } });
    await links.saveEdit(form);
    // The details read the link again.
    await links.setting(text('en-US', 'links.form.publicTitle')).getByText('Acme pricing 2028', { exact: true }).waitFor();
    expect(await links.setting(text('en-US', 'links.detail.watermark')).innerText()).toBe(text('en-US', 'links.detail.yes'));
    expect(await links.setting(text('en-US', 'links.detail.emailGate')).innerText()).toBe(text('en-US', 'links.detail.yes'));
    expect(await links.setting(text('en-US', 'linkGates.detail.denyList')).innerText()).toBe('rival.example');
    expect(await links.settings.locator('[data-agreement-version]').getAttribute('data-agreement-version')).toBe('1');
    await links.settings.getByText('These prices are for Analytical Engines only.', { exact: false }).waitFor();
    await expectAccessible(owner, 'link detail (edited)');
    await links.settings.scrollIntoViewIfNeeded();
    await settledShot(owner, 'link-edited-1440');
    // The API has them; the rest of the link is as it was.
    const made = (await ownerLinks()).find((l) => l.name === 'Pricing deck');
    expect(made).toMatchObject({
      title: 'Acme pricing 2028',
      watermark: 1,
      emailGate: 1,
      denyList: ['rival.example'],
      allowList: [],
      agreement: 'These prices are for Analytical Engines only.',
      agreementVersion: 1,
      hasPasscode: false,
      allowDownload: 1,
      customer: { name: 'Ada Lovelace' },
    });
    await links.detail.getByRole('button', { name: text('en-US', 'links.detail.back') }).click();
    await links.detail.waitFor({ state: 'hidden' });
  });

  it("shows Ada's reading as one entry of her timeline, with its pages, not one per page turn", async () => {
    await new CustomersPage(owner).open(base, appId);
    await new CustomersPage(owner).customerLink('Ada Lovelace').click();
    const reading = owner.locator('[data-behaviour="link_view_log"]');
    await reading.first().waitFor();
    expect(await reading.count()).toBe(1);
    expect(await reading.textContent()).toContain(text('en-US', 'customer.actions.link_view_log', { name: 'Pricing deck' }));
    // On her phone the whole deck fits the screen: page 1 for ~2.5 s, then "next", page 2 for ~1.5 s,
    // never page 3 (the viewer once took the last page in view for the one being read).
    const entry = (await reading.textContent()) ?? '';
    expect(entry).toContain(text('en-US', 'customer.pageN', { n: 1 }));
    expect(entry).toContain(text('en-US', 'customer.pageN', { n: 2 }));
    expect(entry).not.toContain(text('en-US', 'customer.pageN', { n: 3 }));
    // Its page turns and its leave are in that entry, not beside it.
    expect(await owner.locator('[data-behaviour="file_view_duration"], [data-behaviour="link_leave_log"]').count()).toBe(0);
    await shot(owner, 'customer-reading-1440');
  });

  it('replaces the project secret: the new one is shown, the old one works until the time said', async () => {
    await new AppShell(owner, 'en-US').goTo('settings');
    const settings = new SettingsPage(owner);
    await settings.heading.waitFor();
    expect(await settings.secret.getAttribute('data-secret')).toBe('hidden');
    await expectAccessible(owner, 'settings');
    const before = await settings.revealedSecret();
    expect(before.length).toBeGreaterThan(10);
    await settings.rotate();
    await expect.poll(() => settings.secret.inputValue()).not.toBe(before);
    const after = await settings.secret.inputValue();
    // Both work for ingestion now.
    for (const secret of [before, after]) {
      const res = await fetch(`${base}/api/v1.7/app/${appId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-app-secret': secret },
        body: JSON.stringify([]),
      });
      expect(res.status).not.toBe(403);
    }
    await owner.getByText(text('en-US', 'settings.audit.actions.project.secret_rotate')).waitFor();
    await expectAccessible(owner, 'settings (rotated)');
    await shot(owner, 'settings-1440');
  });

  it('the website page: the snippet with its queue stub to paste, the site secret hidden as the project secret is', async () => {
    await new AppShell(owner, 'en-US').goTo('site');
    await owner.getByRole('heading', { level: 1, name: text('en-US', 'site.title') }).waitFor();
    const snippet = (await owner.getByLabel(text('en-US', 'site.snippet.title'), { exact: true }).textContent()) ?? '';
    expect(snippet.split('\n')[0]).toBe(
      '<script>window.rapport=window.rapport||function(){(rapport.q=rapport.q||[]).push(arguments)};</script>',
    );
    expect(snippet.split('\n')[1]).toMatch(/^<script async src="[^"]+\/t\.js" data-key="[^"]+"><\/script>$/);
    const secret = owner.getByLabel(text('en-US', 'site.secret.title'), { exact: true });
    expect(await secret.getAttribute('data-secret')).toBe('hidden');
    expect(await secret.inputValue()).toMatch(/^•+$/);
    await owner.getByRole('button', { name: text('en-US', 'common.secret.copy', { what: text('en-US', 'site.secret.title') }) }).click();
    const copied = await owner.evaluate('navigator.clipboard.readText()');
    await owner.getByRole('button', { name: text('en-US', 'common.secret.reveal') }).click();
    await owner.locator('[data-secret="shown"]').waitFor();
    expect(await secret.inputValue()).toBe(copied);
    expect(String(copied).length).toBeGreaterThan(20);
    await expectAccessible(owner, 'website');
    await shot(owner, 'site-1440');
  });

  it('adds a webhook and sends it a test event, which arrives signed', async () => {
    await new AppShell(owner, 'en-US').goTo('webhooks');
    const webhooks = new WebhooksPage(owner);
    await webhooks.heading.waitFor();
    await owner.getByText(text('en-US', 'webhooks.empty')).waitFor();
    await expectAccessible(owner, 'webhooks (empty)');
    const secret = await webhooks.add(receiver.url);
    expect(secret).toMatch(/^whsec_/);
    const result = await webhooks.test(receiver.url);
    await result.filter({ hasText: text('en-US', 'webhooks.testOk', { status: 200 }) }).waitFor();
    const tests = receiver.received.flatMap((r) => r.events).filter((e) => e.event_type === 'webhook.test');
    expect(tests).toHaveLength(1);
    await expectAccessible(owner, 'webhooks');
    await shot(owner, 'webhooks-1440');
  });

  it('the calls and mass e-mail lists say what fills them while they are empty', async () => {
    const shell = new AppShell(owner, 'en-US');
    for (const [section, key] of [
      ['calls', 'histories.calls'],
      ['posts', 'histories.posts'],
    ] as const) {
      await shell.goTo(section);
      await owner.getByRole('heading', { level: 1, name: text('en-US', `${key}.title`) }).waitFor();
      await owner.getByText(text('en-US', `${key}.empty`)).waitFor();
      await expectAccessible(owner, section);
      await shot(owner, `${section}-1440`);
    }
  });

  it("the server's administrator makes an OAuth client; its secret is shown once", async () => {
    await new AppShell(owner, 'en-US').goTo('clients');
    await owner.getByRole('heading', { level: 1, name: text('en-US', 'admin.clients.title') }).waitFor();
    await owner.getByText(text('en-US', 'admin.clients.console')).waitFor();
    await owner.getByRole('button', { name: text('en-US', 'admin.clients.add') }).click();
    const dialog = owner.getByRole('dialog').filter({ hasText: text('en-US', 'admin.clients.addTitle') });
    await dialog.getByLabel(text('en-US', 'admin.clients.name')).fill('Partner CRM');
    await dialog.getByRole('button', { name: text('en-US', 'common.actions.save') }).click();
    const made = owner.getByRole('dialog').filter({ hasText: text('en-US', 'admin.clients.madeTitle') });
    const secret = (await made.locator('[data-client-secret]').innerText()).trim();
    expect(secret.length).toBeGreaterThan(20);
    await expectAccessible(owner, 'client made');
    await made.getByRole('button', { name: /close/i }).click();
    await owner.getByText('Partner CRM').waitFor();
    await expectAccessible(owner, 'clients');
    await shot(owner, 'clients-1440');
  });

  it('every new page works at 375 px on a touch screen', async () => {
    const signIn = new SignInPage(phone);
    await signIn.open(base);
    await signIn.signIn('owner@links.example', PASSWORD);
    await new ProjectsPage(phone).heading.waitFor();
    await new ProjectsPage(phone).open('Acme Sales');
    const shell = new AppShell(phone, 'en-US');
    await shell.goTo('links');
    const links = new LinksPage(phone);
    await links.heading.waitFor();
    await links.link('Pricing deck').waitFor();
    await expectAccessible(phone, 'links (375)');
    await shot(phone, 'links-375');
    await links.link('Pricing deck').click();
    await links.viewLogs().first().waitFor();
    await links.pageChart.locator('canvas').waitFor();
    await expectAccessible(phone, 'link detail (375)');
    await shot(phone, 'link-375');
    await links.detail.getByRole('button', { name: text('en-US', 'links.detail.back') }).click();
    await links.detail.waitFor({ state: 'hidden' });
    await shell.goTo('settings');
    await new SettingsPage(phone).heading.waitFor();
    await expectAccessible(phone, 'settings (375)');
    await shot(phone, 'settings-375');
    await shell.goTo('site');
    await phone.getByLabel(text('en-US', 'site.secret.title'), { exact: true }).waitFor();
    await expectAccessible(phone, 'website (375)');
    await shot(phone, 'site-375');
    await shell.goTo('webhooks');
    await new WebhooksPage(phone).card(receiver.url).waitFor();
    await expectAccessible(phone, 'webhooks (375)');
    await shot(phone, 'webhooks-375');
    for (const [section, key] of [
      ['calls', 'histories.calls'],
      ['posts', 'histories.posts'],
    ] as const) {
      await shell.goTo(section);
      await phone.getByText(text('en-US', `${key}.empty`)).waitFor();
      await expectAccessible(phone, `${section} (375)`);
      await shot(phone, `${section}-375`);
    }
    await shell.goTo('customers');
    await new CustomersPage(phone).customerLink('Ada Lovelace').waitFor();
    await shot(phone, 'customers-375');
    await shell.goTo('clients');
    await phone.getByText('Partner CRM').waitFor();
    await expectAccessible(phone, 'clients (375)');
    await shot(phone, 'clients-375');
    // The server's pages have no project menu: back to the project's.
    await phone.goto(`${base}/console/p/${appId}/customers`);
    await new CustomersPage(phone).customerLink('Ada Lovelace').waitFor();
    await new CustomersPage(owner).open(base, appId);
    await new CustomersPage(owner).customerLink('Ada Lovelace').waitFor();
    await shot(owner, 'customers-1440');
  });

  it('at 375 px on a touch screen a link is edited: a passcode set, a new agreement text (its version 2), then the passcode removed', async () => {
    await new AppShell(phone, 'en-US').goTo('links');
    const links = new LinksPage(phone);
    await links.link('Deck under NDA').click();
    await links.detail.waitFor();
    let form = await links.edit('Deck under NDA');
    expect(await form.getByLabel(text('en-US', 'linkGates.form.denyList')).inputValue()).toBe('rival.example, *.rival.example');
    await form.getByLabel(text('en-US', 'links.form.passcode')).fill('open sesame');
    await form.getByLabel(text('en-US', 'linkGates.form.agreement')).fill('Keep this deck, and its prices, to yourself.');
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await inSight(form.getByRole('button', { name: buttonName('en-US', 'linkGates.edit.save') }))).toBe(true);
    await expectAccessible(phone, 'link edit form (375)');
    await shot(phone, 'link-edit-375');
    await links.saveEdit(form);
    expect(await links.setting(text('en-US', 'links.detail.passcode')).innerText()).toBe(text('en-US', 'links.detail.yes'));
    await links.settings.locator('[data-agreement-version="2"]').waitFor();
    let nda = (await ownerLinks()).find((l) => l.name === 'Deck under NDA');
    expect(nda).toMatchObject({ hasPasscode: true, agreementVersion: 2, denyList: ['rival.example', '*.rival.example'] });
    // A link with a passcode: it is kept, replaced or removed, never shown.
    form = await links.edit('Deck under NDA');
    const keep = form.getByRole('radio', { name: text('en-US', 'linkGates.edit.passcode.keep') });
    expect(await keep.isChecked()).toBe(true);
    await keep.scrollIntoViewIfNeeded();
    await expectAccessible(phone, 'link edit form, a passcode (375)');
    await shot(phone, 'link-edit-passcode-375');
    await form.getByText(text('en-US', 'linkGates.edit.passcode.remove'), { exact: true }).click();
    await links.saveEdit(form);
    expect(await links.setting(text('en-US', 'links.detail.passcode')).innerText()).toBe(text('en-US', 'links.detail.no'));
    await expectAccessible(phone, 'link detail (edited, 375)');
    await links.settings.scrollIntoViewIfNeeded();
    await settledShot(phone, 'link-edited-375');
    nda = (await ownerLinks()).find((l) => l.name === 'Deck under NDA');
    expect(nda).toMatchObject({ hasPasscode: false, agreementVersion: 2, agreement: 'Keep this deck, and its prices, to yourself.' });
    await links.detail.getByRole('button', { name: text('en-US', 'links.detail.back') }).click();
    await links.detail.waitFor({ state: 'hidden' });
  });

  it("a page that does not exist leads back: to the project's customers inside a project, else to the projects", async () => {
    const notFound = text('en-US', 'common.errors.notFound');
    await phone.goto(`${base}/console/p/${appId}/nowhere`);
    await phone.getByRole('heading', { level: 1, name: notFound }).waitFor();
    await expectAccessible(phone, 'not found (375)');
    await shot(phone, 'not-found-375');
    await phone.getByRole('link', { name: text('en-US', 'common.errors.backToCustomers') }).click();
    await new CustomersPage(phone).customerLink('Ada Lovelace').waitFor();
    expect(new URL(phone.url()).pathname).toBe(`/console/p/${appId}/customers`);
    await owner.goto(`${base}/console/nowhere`);
    await owner.getByRole('heading', { level: 1, name: notFound }).waitFor();
    await expectAccessible(owner, 'not found');
    await shot(owner, 'not-found-1440');
    await owner.getByRole('link', { name: text('en-US', 'common.errors.backToProjects') }).click();
    await new ProjectsPage(owner).heading.waitFor();
    expect(new URL(owner.url()).pathname).toMatch(/^\/console\/?$/);
  });

  it('the Chinese texts show on the new pages', async () => {
    const shell = await new AppShell(phone, 'en-US').switchLanguage('zh-CN');
    await shell.goTo('links');
    await new LinksPage(phone, 'zh-CN').heading.waitFor();
    await new LinksPage(phone, 'zh-CN').link('Pricing deck').waitFor();
    await expectAccessible(phone, 'links in Chinese (375)');
    await shot(phone, 'links-zh-375');
    expect(pageErrors).toEqual([]);
  });
});
