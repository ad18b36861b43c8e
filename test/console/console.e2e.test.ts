// lanes: sqlite
import fs from 'node:fs';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { DESKTOP_UA, launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { hasFocus, inSight, isCut, outOfWidth } from '../../console/e2e/sight.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { AppShell } from '../../console/e2e/pages/AppShell.ts';
import { HomePage } from '../../console/e2e/pages/HomePage.ts';
import { CustomerPage } from '../../console/e2e/pages/CustomerPage.ts';
import { CustomersPage } from '../../console/e2e/pages/CustomersPage.ts';
import { FieldsPage } from '../../console/e2e/pages/FieldsPage.ts';
import { DuplicatesPage } from '../../console/e2e/pages/DuplicatesPage.ts';
import { MembersPage } from '../../console/e2e/pages/MembersPage.ts';
import { ProjectsPage } from '../../console/e2e/pages/ProjectsPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { freePort, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * The web console in a real browser (Debian's chromium, driven by playwright-core) against a real
 * server process on a fresh database: a salesperson's first day, at 1440 px (the project's owner) and
 * at 375 px on a touch screen (a Sales member). Page objects: console/e2e/pages/, texts from the locale
 * files. Screenshots of the customer list and a customer's page at both widths go to
 * CONSOLE_SHOTS_DIR (default /tmp/console-shots).
 */
const PASSWORD = 'a long enough password';
/** The first account's setup code: an operator reads it in the log; the test chooses it (SETUP_CODE). */
const SETUP_CODE = 'console-e2e-setup-code';

const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
let owner: Page;
let sales: Page;
let appId = '';
let secret = '';
let customerId = '';
const pageErrors: string[] = [];

async function ingest(batch: unknown[]): Promise<void> {
  const res = await fetch(`${base}/api/v1.7/app/${appId}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-app-secret': secret },
    body: JSON.stringify(batch),
  });
  const body = (await res.json()) as unknown;
  expect(body, JSON.stringify(body)).toMatchObject({ status: 1 });
}

const visit = (id: string, customer: string, name: string, title: string, svcUserId: number) => ({
  event_type: 'create',
  domainType: 'BehaviourLog',
  domainId: id,
  body: {
    customerId: customer,
    customerName: name,
    svcUserId: String(svcUserId),
    action: 'access_site',
    when: new Date(Date.now() - 60_000).toISOString().replace('T', ' ').slice(0, 19),
    content: JSON.stringify({ web_access_log_id: `wa-${id}`, title, site: 'acme.example', url: '/' }),
  },
});

const contextFor = (width: number, touch: boolean): Promise<BrowserContext> =>
  personContext(browser, { width, touch, timezoneId: 'Europe/Berlin', pageErrors, timeout: 15_000 });

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  const port = await freePort();
  processes.started(
    runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', LIVE_POLL_MS: '100', SETUP_CODE }),
  );
  base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/healthz`);
  browser = await launchChromium();
  desktop = await contextFor(1440, false);
  mobile = await contextFor(375, true);
  owner = await desktop.newPage();
  sales = await mobile.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the console, as a salesperson uses it', { timeout: 120_000 }, () => {
  // From the first signed-out load to the first project's customers: not one failed request or console error.
  let noise: ReturnType<typeof watchNoise>;

  it('/ is the console; the first user signs up and lands on an empty project list', async () => {
    noise = watchNoise(owner);
    await owner.goto(`${base}/`);
    const signIn = new SignInPage(owner);
    await signIn.heading.waitFor();
    expect(new URL(owner.url()).pathname).toBe('/console/sign-in');
    await expectAccessible(owner, 'sign-in');
    await signIn.signUp('owner@acme.example', 'Olivia Owner', PASSWORD, SETUP_CODE);
    const projects = new ProjectsPage(owner);
    await projects.heading.waitFor();
    await owner.getByText(text('en-US', 'projects.empty')).waitFor();
    await expectAccessible(owner, 'projects');
  });

  it('creates a project and is taken to its home, its customers one click away', async () => {
    await new ProjectsPage(owner).create('Acme Sales', 'Our first project', 'CN');
    // The home page of a new project says what will fill it.
    const home = new HomePage(owner);
    await home.heading.waitFor();
    appId = new URL(owner.url()).pathname.split('/')[3] as string;
    expect(appId).toMatch(/^[0-9a-f-]{36}$/);
    await owner.getByText(text('en-US', 'home.empty.title')).waitFor();
    await expectAccessible(owner, 'home (empty)');
    await shot(owner, 'home-empty-1440');
    await new AppShell(owner, 'en-US').goTo('customers');
    const customers = new CustomersPage(owner);
    await customers.heading.waitFor();
    await owner.getByText(text('en-US', 'customers.empty')).waitFor();
    await expectAccessible(owner, 'customers (empty)');
    const info = (await (await fetch(`${base}/api/v1.7/server-info`)).json()) as { data: { signup: boolean } };
    expect(info.data.signup).toBe(false);
    // Signed out (no session to restore), then signed in as a user who is not a server administrator.
    await owner.reload();
    await customers.heading.waitFor();
    noise.stop();
    expect(noise.failures).toEqual([]);
  });

  it('says, before anyone writes a campaign, that this server sends no e-mail (SMTP_URL unset)', async () => {
    await owner.goto(`${base}/console/p/${appId}/posts/new`);
    const alert = owner.getByRole('alert').filter({ hasText: text('en-US', 'campaigns.compose.noMailTitle') });
    await alert.waitFor();
    expect(await owner.getByLabel(text('en-US', 'campaigns.compose.subject')).count()).toBe(0);
    await expectAccessible(owner, 'composer without SMTP');
    await shot(owner, 'composer-no-mail-1440');
    // Back to the customers, where the next steps begin.
    await new CustomersPage(owner).open(base, appId);
  });

  it("creates a customer through the metadata form; the server's validation error shows on the field it names", async () => {
    const customers = new CustomersPage(owner);
    // At 375 px, where the form is long: Save is at its end, the field the server refuses far above it.
    await owner.setViewportSize({ width: 375, height: 812 });
    try {
      await customers.fillNew({ name: 'Ada Lovelace', company: 'Analytical Engines', phone: 'not a phone' });
      await customers.saveButton().scrollIntoViewIfNeeded();
      expect(await inSight(customers.field('phone')), 'the phone field is out of sight when Save is pressed').toBe(false);
      await customers.save();
      // The error table's text for phone_invalid (a field code), then the server's own detail, on the phone field only.
      expect((await customers.fieldError('phone')).split('\n')).toEqual([
        'The parameter is not valid: wrong type or format, too long, not an allowed value, or not a member',
        'phone is not a valid mobile number for region CN',
      ]);
      expect(await customers.fieldError('name')).toBe('');
      // The field is brought back into sight with its messages, the cursor in it.
      await expect.poll(() => inSight(customers.field('phone'))).toBe(true);
      for (const m of await customers.fieldMessages('phone')) await expect.poll(() => inSight(m)).toBe(true);
      expect(await hasFocus(customers.field('phone'))).toBe(true);
      await owner.keyboard.press('Control+A');
      await owner.keyboard.type('13800000001');
      await customers.save();
      await owner.getByText(text('en-US', 'customers.created')).waitFor();
      await customers.form.waitFor({ state: 'hidden' });
      await customers.customerLink('Ada Lovelace').waitFor();
    } finally {
      await owner.setViewportSize({ width: 1440, height: 900 });
    }
    // A second customer, so that the search has something to leave out.
    await customers.fillNew({ name: 'Grace Hopper', email: 'grace@navy.example' });
    await customers.save();
    await customers.customerLink('Grace Hopper').waitFor();
  });

  it('keyboard: from the top of the customers page Tab meets the search, then the filters, then the actions; "/" goes to the search', async () => {
    const customers = new CustomersPage(owner);
    await owner.reload();
    await customers.heading.waitFor();
    await customers.customerLink('Grace Hopper').waitFor();
    const importButton = owner.getByRole('button', { name: text('en-US', 'customers.import.button') });
    const group = owner.getByRole('combobox', { name: text('en-US', 'customers.group'), exact: true });
    // Tab from the page's top, noting when the search, the group filter and the Import button take the focus.
    const met: string[] = [];
    for (let i = 0; i < 40 && !met.includes('import'); i++) {
      await owner.keyboard.press('Tab');
      if (await hasFocus(customers.search)) met.push('search');
      else if (await hasFocus(group)) met.push('group');
      else if (await hasFocus(importButton)) met.push('import');
    }
    expect(met).toEqual(['search', 'group', 'import']);
    // "/" away from any field puts the cursor in the search box, and is not typed there.
    await importButton.focus();
    await owner.keyboard.press('/');
    expect(await hasFocus(customers.search)).toBe(true);
    expect(await customers.search.inputValue()).toBe('');
    // In a field, "/" is a character like any other.
    await owner.keyboard.type('a/b');
    expect(await customers.search.inputValue()).toBe('a/b');
    await customers.search.fill('');
    await owner.keyboard.press('Escape');
  });

  it('finds the customer by search (kept in the URL) and opens their page', async () => {
    const customers = new CustomersPage(owner);
    await customers.searchFor('analytical');
    await owner.waitForURL(/[?&]q=analytical/);
    await customers.customerLink('Grace Hopper').waitFor({ state: 'detached' });
    await customers.customerLink('Ada Lovelace').waitFor();
    // A reload shows the same list.
    await owner.reload();
    await customers.customerLink('Ada Lovelace').waitFor();
    expect(await customers.customerLink('Grace Hopper').count()).toBe(0);
    await expectAccessible(owner, 'customers (searched)');
    await customers.customerLink('Ada Lovelace').click();
    const page = new CustomerPage(owner);
    await page.heading('Ada Lovelace').waitFor();
    customerId = new URL(owner.url()).pathname.split('/').pop() as string;
    await page.entry('create').waitFor();
  });

  it("shows the seeded option labels in the user's language; the owner adds a field the customer form then shows, and renames it at 375 px", async () => {
    // Sex defaults to "2", seeded with the label 未知: the profile shows the English one.
    await owner.getByText(text('en-US', 'customers.options.sex.2'), { exact: true }).waitFor();
    expect(await owner.getByText('未知', { exact: true }).count()).toBe(0);
    const tab = await desktop.newPage();
    const fields = new FieldsPage(tab);
    await fields.open(base, appId);
    await fields.row(text('en-US', 'customers.fields.name')).first().waitFor();
    // The table's rows are drawn (the seeded landline type among them) before its text is read.
    await tab.getByRole('main').getByText(text('en-US', 'customers.fieldEditor.types.fixedPhone')).first().waitFor();
    // Every seeded field and type in English: no Chinese title, no raw type name.
    const page = (await tab.getByRole('main').textContent()) ?? '';
    expect(page.match(/[\u4e00-\u9fff]+/g) ?? []).toEqual([]);
    expect(page).toContain(text('en-US', 'customers.fieldEditor.types.fixedPhone'));
    expect(page).not.toContain('fixedPhone ');
    await fields.addText('contract', 'Contract no.');
    await fields.row('Contract no.').waitFor();
    await expectAccessible(tab, 'fields');
    await tab.close();

    // On the owner's phone, at 375 px: each field a card whose actions are all in reach; Edit renames one.
    const phone = await contextFor(375, true);
    try {
      const page = await phone.newPage();
      const signIn = new SignInPage(page);
      await signIn.open(base);
      await signIn.signIn('owner@acme.example', PASSWORD);
      await new ProjectsPage(page).heading.waitFor();
      const onPhone = new FieldsPage(page);
      await onPhone.open(base, appId);
      await onPhone.row('Contract no.').waitFor();
      await expectAccessible(page, 'fields (375)');
      await shot(page, 'fields-375');
      const buttons = page.getByRole('main').getByRole('button');
      expect(await buttons.count()).toBeGreaterThan(20);
      expect(await outOfWidth(buttons), 'buttons wider than the screen reaches').toEqual([]);
      const editor = await onPhone.edit('Contract no.');
      const labelBox = editor.getByLabel(text('en-US', 'customers.fieldEditor.label'), { exact: true });
      expect(await labelBox.inputValue()).toBe('Contract no.');
      await labelBox.fill('Contract number');
      await editor.getByRole('button', { name: text('en-US', 'common.actions.save') }).click();
      await page.getByText(text('en-US', 'customers.fieldEditor.saved')).waitFor();
      await onPhone.row('Contract number').waitFor();
      // The header names the project the page is in; a long name is cut short, the header's buttons still in reach.
      const shell = new AppShell(page, 'en-US');
      await shell.currentProject('Acme Sales').waitFor();
      expect(await isCut(shell.currentProject('Acme Sales').locator('span').first())).toBe(false);
      const long = 'Analytical Engines: worldwide sales, partners and customer success';
      const made = await fetch(`${base}/api/v1.7/apps`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await passwordToken('owner@acme.example')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: long }),
      }).then((r) => r.json() as Promise<{ data: { appId: string } }>);
      await page.goto(`${base}/console/p/${made.data.appId}/fields`);
      await shell.currentProject(long).waitFor();
      expect(await isCut(shell.currentProject(long).locator('span').first())).toBe(true);
      expect(await inSight(shell.menuButton)).toBe(true);
      expect(await inSight(shell.liveButton)).toBe(true);
      // It opens the drawer, where the project is switched.
      await shell.currentProject(long).click();
      await page
        .getByRole('dialog')
        .getByRole('combobox', { name: text('en-US', 'common.header.project'), exact: true })
        .waitFor();
    } finally {
      await phone.close();
    }
    const tab2 = await desktop.newPage();
    const customers = new CustomersPage(tab2);
    await customers.open(base, appId);
    await customers.openNew();
    await customers.form.getByLabel('Contract number', { exact: true }).waitFor();
    await tab2.close();
  });

  it('shows an ingested behaviour record in the timeline, and a live one as a toast the moment it arrives', async () => {
    // The project's secret, as its owner reads it (through the API, with a token of their own).
    secret = await projectSecret('owner@acme.example');
    const ownerId = await userId('owner@acme.example');
    await ingest([visit('b-1', customerId, 'Ada Lovelace', 'Pricing', ownerId)]);
    await owner.reload();
    const page = new CustomerPage(owner);
    await page.entry('access_site', { site: 'Pricing' }).waitFor();
    await expectAccessible(owner, 'customer page');
    await shot(owner, 'customer-1440');

    // Live: the page is open, the stream too; a new record arrives.
    await owner.waitForTimeout(500);
    await ingest([visit('b-2', customerId, 'Ada Lovelace', 'Checkout', ownerId)]);
    const toast = text('en-US', 'live.activity', {
      name: 'Ada Lovelace',
      what: text('en-US', 'customer.actions.access_site', { site: 'Checkout' }),
    });
    await owner.getByText(toast).waitFor();
    // …and the timeline, invalidated by the event, shows it without a reload.
    await page.entry('access_site', { site: 'Checkout' }).waitFor();

    await new CustomersPage(owner).open(base, appId);
    await new CustomersPage(owner).customerLink('Ada Lovelace').waitFor();
    await shot(owner, 'customers-1440');
  });

  it('merges a duplicate from the duplicates page: the customer chosen stays, the other leaves the list', async () => {
    const token = await passwordToken('owner@acme.example');
    const ownerId = await userId('owner@acme.example');
    const twin = await fetch(`${base}/api/v1.7/app/${appId}/member/${ownerId}/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'A. Lovelace', phone: '13800000001', title: 'Countess' }),
    }).then((r) => r.json() as Promise<{ data: { id: string } }>);
    await new AppShell(owner, 'en-US').goTo('duplicates');
    const duplicates = new DuplicatesPage(owner);
    await duplicates.heading.waitFor();
    await duplicates.set('13800000001').getByText('A. Lovelace').waitFor();
    await expectAccessible(owner, 'duplicates');
    await duplicates.merge('13800000001', 'Ada Lovelace');
    await owner.getByText(text('en-US', 'customers.duplicates.empty')).waitFor();
    const merged = (await fetch(`${base}/api/v1.7/customer/${twin.data.id}/detail`, { headers: { authorization: `Bearer ${token}` } }).then(
      (r) => r.json(),
    )) as { data: { status: number; mergedCustomerId: string } };
    expect(merged.data).toMatchObject({ status: 2, mergedCustomerId: customerId });
    await new AppShell(owner, 'en-US').goTo('customers');
    const customers = new CustomersPage(owner);
    await customers.customerLink('Ada Lovelace').waitFor();
    // The list shown at once may be the cached one; the refetch the merge asked for drops the merged customer.
    await customers.customerLink('A. Lovelace').waitFor({ state: 'detached' });
  });

  it('a Sales member, at 375 px on a touch screen, accepts the invitation and sees only their own customers', async () => {
    const salesId = await registerUser('sam@acme.example', 'Sam Sales');
    await new AppShell(owner, 'en-US').goTo('members');
    const members = new MembersPage(owner);
    await members.heading.waitFor();
    await members.add(salesId);
    await members.member(String(salesId)).or(members.member('Sam Sales')).first().waitFor();
    await expectAccessible(owner, 'members');
    // A customer of Sam's, made with Sam's own token.
    const token = await passwordToken('sam@acme.example');
    await fetch(`${base}/api/v1.7/user/membership/${appId}/accept`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }).then(
      async (r) => expect(await r.json()).toMatchObject({ status: 1 }),
    );
    const created = await fetch(`${base}/api/v1.7/app/${appId}/member/${salesId}/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Sam Customer', company: 'Small Shop' }),
    }).then((r) => r.json() as Promise<{ data: { id: string } }>);
    await ingest([visit('b-3', created.data.id, 'Sam Customer', 'Catalogue', salesId)]);

    const signIn = new SignInPage(sales);
    await signIn.open(base);
    await expectAccessible(sales, 'sign-in (375)');
    await signIn.signIn('sam@acme.example', PASSWORD);
    const projects = new ProjectsPage(sales);
    await projects.heading.waitFor();
    await projects.open('Acme Sales');
    // A project opens on its home page; the customers are one click away.
    await sales.waitForURL(/\/home$/);
    await new AppShell(sales, 'en-US').goTo('customers');
    const customers = new CustomersPage(sales);
    await customers.heading.waitFor();
    // The phone's header names the project (its switch is in the drawer).
    await new AppShell(sales, 'en-US').currentProject('Acme Sales').waitFor();
    await customers.customerLink('Sam Customer').waitFor();
    expect(await customers.customerLink('Ada Lovelace').count()).toBe(0);
    expect(await customers.customerLink('Grace Hopper').count()).toBe(0);
    await expectAccessible(sales, 'customers (375)');
    await shot(sales, 'customers-375');
    await customers.customerLink('Sam Customer').click();
    const page = new CustomerPage(sales);
    await page.heading('Sam Customer').waitFor();
    await page.entry('access_site', { site: 'Catalogue' }).waitFor();
    await expectAccessible(sales, 'customer page (375)');
    await shot(sales, 'customer-375');
    // Another member's customer is not theirs to see, even by its address.
    await sales.goto(`${base}/console/p/${appId}/customers/${customerId}`);
    await sales.getByText(text('en-US', 'customer.notFound')).waitFor();
  });

  it('switches to 中文 and the console speaks Chinese, across a reload', async () => {
    const shell = await new AppShell(sales, 'en-US').switchLanguage('zh-CN');
    await shell.goTo('customers');
    const customers = new CustomersPage(sales, 'zh-CN');
    await customers.heading.waitFor();
    await customers.newButton.waitFor();
    expect(await sales.locator('html').getAttribute('lang')).toBe('zh-CN');
    await sales.reload();
    await customers.heading.waitFor();
    await expectAccessible(sales, 'customers in Chinese (375)');
    // Their alerts (inbox entries, e-mails) now speak Chinese too: the switch told the server.
    const token = await passwordToken('sam@acme.example');
    const settings = () =>
      fetch(`${base}/api/v1.7/user/notification-settings`, { headers: { authorization: `Bearer ${token}` } }).then(
        async (r) => ((await r.json()) as { data: { locale: string } }).data.locale,
      );
    await expect.poll(settings, { timeout: 10_000 }).toBe('zh-CN');
  });

  it('signs out: the session cookie no longer signs in', async () => {
    await owner.getByRole('button', { name: text('en-US', 'common.header.signOut') }).click();
    await new SignInPage(owner).heading.waitFor();
    await owner.goto(`${base}/console/p/${appId}/customers`);
    await new SignInPage(owner).heading.waitFor();
    expect(new URL(owner.url()).searchParams.get('next')).toBe(`/p/${appId}/customers`);
  });

  it("runs under the server's content security policy, and without page errors", async () => {
    const strict = await browser.newContext({ viewport: { width: 1440, height: 900 }, userAgent: DESKTOP_UA });
    try {
      const page = await strict.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      page.on('pageerror', (err) => pageErrors.push(err.message));
      const signIn = new SignInPage(page);
      await signIn.open(base);
      await signIn.signIn('owner@acme.example', PASSWORD);
      await new ProjectsPage(page).heading.waitFor();
      await page.goto(`${base}/console/p/${appId}/customers/${customerId}`);
      await new CustomerPage(page).heading('Ada Lovelace').waitFor();
      // The activity chart (ECharts, loaded on demand) is drawn.
      await page
        .getByRole('img', { name: text('en-US', 'customer.topPages') })
        .locator('canvas')
        .waitFor();
      expect(violations).toEqual([]);
    } finally {
      await strict.close();
    }
    expect(pageErrors).toEqual([]);
  });
});

/** A user's password-grant token, through an OAuth client made with the CLI (as an integration would). */
let client: { basic: string } | undefined;
async function oauthClient(): Promise<{ basic: string }> {
  if (client) return client;
  const made = runCli(['client', 'create', '--name', 'e2e'], processes.db.env);
  await made.exited;
  const c = JSON.parse(made.output().trim()) as { client_id: string; client_secret: string };
  client = { basic: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}` };
  return client;
}

async function passwordToken(username: string): Promise<string> {
  const { basic } = await oauthClient();
  const res = await fetch(`${base}/svcuser/oauth2/access_token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password: PASSWORD }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function registerUser(email: string, nickname: string): Promise<number> {
  const { basic } = await oauthClient();
  await fetch(`${base}/svcuser/oauth2/register`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: PASSWORD, nickname }),
  });
  return userId(email);
}

async function userId(username: string): Promise<number> {
  const token = await passwordToken(username);
  const info = await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken`, { headers: { authorization: `Bearer ${token}` } });
  return ((await info.json()) as { id: number }).id;
}

async function projectSecret(username: string): Promise<string> {
  const token = await passwordToken(username);
  const apps = (await (await fetch(`${base}/api/v1.7/my-apps`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: { id: string; secret: string }[];
  };
  return apps.data.find((a) => a.id === appId)?.secret as string;
}
