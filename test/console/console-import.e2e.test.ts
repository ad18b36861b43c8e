// lanes: sqlite
import ExcelJS from 'exceljs';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonName, text } from '../../console/e2e/locale.ts';
import { CustomersPage } from '../../console/e2e/pages/CustomersPage.ts';
import { ImportWizard } from '../../console/e2e/pages/ImportWizard.ts';
import { SettingsPage } from '../../console/e2e/pages/SettingsPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { seriousViolations } from '../../console/e2e/axe.ts';
import { launchChromium, personContext } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import {
  type ProvisionedProject,
  freePort,
  provisionProject,
  registerByEmail,
  runCli,
  useProcessDatabase,
  waitForOk,
} from '../helpers/process.ts';

/**
 * The customer import wizard and the export in a real browser, against a real server process on a
 * fresh database: a Sales member imports a small CSV (one row invalid, one a duplicate of a customer
 * they have) through the four steps, downloads the failed rows, sees the new customers in the list,
 * and exports the list; at 1440 px and at 375 px on a touch screen. The project's owner then
 * switches Sales export off, and the export explains the server's refusal.
 */
const PASSWORD = 'a long enough password';
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
let salesId = 0;
let salesToken = '';
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];

async function contextFor(width: number, touch: boolean, locale = 'en-US'): Promise<BrowserContext> {
  const context = await personContext(browser, { width, touch, locale, pageErrors, timeout: 30_000 });
  contexts.push(context);
  return context;
}

async function api<T>(path: string, token: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  const body = (await res.json()) as { status: number; data: T };
  expect(body, JSON.stringify(body)).toMatchObject({ status: 1 });
  return body.data;
}

beforeAll(async () => {
  const port = await freePort();
  // Listening beyond this machine with PUBLIC_BASE_URL unset: links would name localhost (a banner for the Master).
  processes.started(runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '0.0.0.0', LOG_LEVEL: 'warn' }));
  base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/healthz`);
  project = await provisionProject(base, processes.db.env, '13700000001');
  // A Sales member, registered by e-mail through the OAuth client of the project's owner.
  ({ id: salesId, token: salesToken } = await registerByEmail(base, processes.db.env, {
    email: 'sam@acme.example',
    password: PASSWORD,
    nickname: 'Sam Sales',
  }));
  const ownerToken = project.auth.authorization.slice('Bearer '.length);
  await api(`/api/v1.7/app/${project.appId}/members`, ownerToken, { method: 'POST', body: { svc_user_id: salesId, role: 'Sales' } });
  await api(`/api/v1.7/user/membership/${project.appId}/accept`, salesToken, { method: 'POST' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** CSV rows of people to import at a width: two new, one a duplicate of an existing customer, one invalid. */
function peopleCsv(tag: string, existingPhone: string, phones: [string, string]): string {
  return [
    'Full name,Mobile,E-mail,Firma,Notes',
    `Imported ${tag} One,${phones[0]},one.${tag}@example.com,Acme ${tag},first`,
    `Imported ${tag} Two,${phones[1]},two.${tag}@example.com,Beta ${tag},second`,
    `Existing ${tag},${existingPhone},,,a duplicate`,
    `Broken ${tag},not-a-phone,,,an invalid mobile`,
    '',
  ].join('\r\n');
}

describe('the public address', { timeout: 120_000 }, () => {
  for (const [width, touch] of [
    [1440, false],
    [375, true],
  ] as const) {
    it(`warns the project's Master, not its Sales members, while links would point at localhost, at ${width} px`, async () => {
      const banner = (p: Page) => p.getByRole('alert').filter({ hasText: text('en-US', 'common.publicAddress.title') });
      const master = await (await contextFor(width, touch)).newPage();
      const signIn = new SignInPage(master);
      await signIn.open(base);
      await signIn.signIn('13700000001', 'long enough pw');
      await master.waitForURL((u) => !u.pathname.includes('sign-in'));
      await new CustomersPage(master).open(base, project.appId);
      await banner(master).waitFor();
      expect(await banner(master).textContent()).toContain(`http://localhost:`);
      await expectAccessible(master, `the public address banner at ${width}`);
      await shot(master, `public-address-banner-${width}`);
      const sales = await (await contextFor(width, touch)).newPage();
      const salesSignIn = new SignInPage(sales);
      await salesSignIn.open(base);
      await salesSignIn.signIn('sam@acme.example', PASSWORD);
      await sales.waitForURL((u) => !u.pathname.includes('sign-in'));
      await new CustomersPage(sales).open(base, project.appId);
      expect(await banner(sales).count()).toBe(0);
    });
  }
});

describe('customer import and export in the console', { timeout: 120_000 }, () => {
  for (const [width, touch, tag, phoneBase] of [
    [1440, false, 'Desk', '1391000'],
    [375, true, 'Phone', '1392000'],
  ] as const) {
    it(`a Sales member imports a CSV through the wizard and exports the list, at ${width} px`, async () => {
      const existingPhone = `${phoneBase}0000`;
      await api(`/api/v1.7/app/${project.appId}/member/${salesId}/customers`, salesToken, {
        method: 'POST',
        body: { name: `Existing ${tag}`, phone: existingPhone },
      });
      const context = await contextFor(width, touch);
      const page = await context.newPage();
      const signIn = new SignInPage(page);
      await signIn.open(base);
      await signIn.signIn('sam@acme.example', PASSWORD);
      const customers = new CustomersPage(page);
      await page.waitForURL((u) => !u.pathname.includes('sign-in'));
      await customers.open(base, project.appId);
      await customers.customerLink(`Existing ${tag}`).waitFor();
      await expectAccessible(page, `customers at ${width}`);

      // Step 1: the file.
      const wizard = new ImportWizard(page);
      await wizard.importButton.click();
      await wizard.drawer.waitFor();
      const template = await wizard.download(() => wizard.button('customers.import.templateAs.csv').click());
      expect(template.name).toBe('customers-template.csv');
      expect(
        template.bytes
          .toString('utf8')
          .replace(/^\ufeff/, '')
          .split('\r\n')[0],
      ).toContain('姓名*');
      await expectAccessible(page, `import: file at ${width}`);
      await wizard.chooseFile(`people-${tag}.csv`, peopleCsv(tag, existingPhone, [`${phoneBase}0001`, `${phoneBase}0002`]));
      await wizard.button('common.actions.next').click();

      // Step 2: columns, as the server matched them; "Firma" is mapped by hand, with the keyboard.
      await wizard.columnSelect('Firma').waitFor();
      expect(await wizard.mappedTo('Full name')).toBe(`${text('en-US', 'customers.fields.name')} *`);
      expect(await wizard.mappedTo('Mobile')).toBe(text('en-US', 'customers.fields.phone'));
      expect(await wizard.mappedTo('E-mail')).toBe(text('en-US', 'customers.fields.email'));
      expect(await wizard.mappedTo('Notes')).toBe(text('en-US', 'customers.import.ignore'));
      expect(await wizard.mappedTo('Firma')).toBe(text('en-US', 'customers.import.ignore'));
      await wizard.mapWithKeyboard('Firma', text('en-US', 'customers.fields.company'));
      await expect.poll(() => wizard.mappedTo('Firma')).toBe(text('en-US', 'customers.fields.company'));
      await expectAccessible(page, `import: columns at ${width}`);
      await shot(page, `import-columns-${width}`);
      await wizard.button('customers.import.check').click();

      // Step 3: the dry run says what would happen; its failed rows download.
      await wizard.drawer.getByText(text('en-US', 'customers.import.dryRunDone', { count: 4, file: `people-${tag}.csv` })).waitFor();
      expect(await wizard.counts('wouldDo')).toEqual({ created: 2, updated: 0, skipped: 1, failed: 1 });
      const dryProblems = await wizard.download(() => wizard.button('customers.import.problems').click());
      expect(dryProblems.bytes.toString('utf8')).toContain('phone_invalid');
      await expectAccessible(page, `import: dry run at ${width}`);
      // Nothing was written by the dry run.
      expect(await customers.customerLink(`Imported ${tag} One`).count()).toBe(0);

      // Step 4: the import, its progress, then its summary and problems.csv.
      await wizard.button('customers.import.run').click();
      // The summary says what became of every row, the failed one too.
      const summary = wizard.summary(`people-${tag}.csv`, { created: 2, updated: 0, skipped: 1, failed: 1 });
      expect(summary).toContain('2 customers created, 0 customers updated, 1 row skipped, 1 row failed');
      await wizard.drawer.getByText(summary).waitFor();
      expect(await wizard.counts('did')).toEqual({ created: 2, updated: 0, skipped: 1, failed: 1 });
      const problems = await wizard.download(() => wizard.button('customers.import.problems').click());
      expect(problems.name).toMatch(/^problems-.+\.csv$/);
      const lines = problems.bytes
        .toString('utf8')
        .replace(/^\ufeff/, '')
        .trim()
        .split('\r\n');
      expect(lines[0]).toBe('Full name,Mobile,E-mail,Firma,Notes,reason');
      expect(lines.slice(1)).toEqual([
        `Broken ${tag},not-a-phone,,,an invalid mobile,phone_invalid: phone is not a valid mobile number for region CN`,
      ]);
      await expectAccessible(page, `import: summary at ${width}`);
      await shot(page, `import-summary-${width}`);
      // The import is over: Escape closes the drawer, even with the focus outside it.
      await page.evaluate(() =>
        (globalThis as unknown as { document: { activeElement: { blur(): void } | null } }).document.activeElement?.blur(),
      );
      await page.keyboard.press('Escape');
      await wizard.drawer.waitFor({ state: 'hidden' });

      // The new customers are in the list, with the company mapped by hand.
      await customers.customerLink(`Imported ${tag} One`).waitFor();
      await customers.customerLink(`Imported ${tag} Two`).waitFor();
      expect(await customers.customerLink(`Broken ${tag}`).count()).toBe(0);
      await page.getByText(`Acme ${tag}`).first().waitFor();

      // Export of the list as it is filtered (the search kept in the URL).
      await customers.searchFor(`Imported ${tag}`);
      await page.waitForURL(/[?&]q=/);
      await customers.customerLink(`Existing ${tag}`).waitFor({ state: 'detached' });
      await wizard.exportButton.click();
      const csv = await wizard.download(() => page.getByRole('menuitem', { name: text('en-US', 'customers.export.as.csv') }).click());
      expect(csv.name).toBe('customers.csv');
      const exported = csv.bytes.toString('utf8');
      expect(exported.startsWith('\ufeff')).toBe(true);
      const names = exported
        .trim()
        .split('\r\n')
        .slice(1)
        .map((l) => l.split(',')[1])
        .sort();
      expect(names).toEqual([`Imported ${tag} One`, `Imported ${tag} Two`]);
      await wizard.exportButton.click();
      const xlsx = await wizard.download(() => page.getByRole('menuitem', { name: text('en-US', 'customers.export.as.xlsx') }).click());
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
      const sheet = wb.worksheets[0] as ExcelJS.Worksheet;
      const xlsxNames: string[] = [];
      sheet.eachRow((row, n) => {
        if (n > 1) xlsxNames.push(String(row.getCell(2).value));
      });
      expect(xlsxNames.sort()).toEqual([`Imported ${tag} One`, `Imported ${tag} Two`]);
      await page.close();
    });
  }

  it("the project's Master reads the imports in the activity log, in words", async () => {
    const page = await (contexts[0] as BrowserContext).newPage();
    await new SettingsPage(page).open(base, project.appId);
    await page.getByText(text('en-US', 'settings.audit.actions.customer.import')).first().waitFor();
    expect(await page.getByText('customer.import').count()).toBe(0);
    await expectAccessible(page, 'activity log');
    await page.close();
  });

  // Before the 60,000-row import below, whose aftermath (its events going out) can keep a loaded
  // machine's server shedding requests for a while.
  it('explains the refusal when the project does not let Sales members export', async () => {
    const ownerToken = project.auth.authorization.slice('Bearer '.length);
    await api(`/api/v1.7/app/${project.appId}`, ownerToken, { method: 'POST', body: { sales_export: 0 } });
    const page = await (contexts[1] as BrowserContext).newPage();
    const customers = new CustomersPage(page);
    await customers.open(base, project.appId);
    const wizard = new ImportWizard(page);
    // With the keyboard: the menu opens on Enter, the arrow keys make an item (CSV or XLSX, both
    // refused) the active one, Enter chooses it. A key pressed before the menu listens is lost on a
    // busy machine: press again until an item is active.
    await wizard.exportButton.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: text('en-US', 'customers.export.as.csv') }).waitFor();
    const active = page.locator('.ant-dropdown-menu-item-active');
    await expect
      .poll(
        async () => {
          if ((await active.count()) === 0) await page.keyboard.press('ArrowDown');
          return active.count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog').filter({ hasText: text('en-US', 'customers.export.off') });
    await dialog.waitFor();
    // The error table's text for the code, and the server's own words.
    const said = await dialog.locator('.ant-modal-confirm-body').innerText();
    expect(said).toContain(text('en-US', 'customers.export.off'));
    expect(said).toContain('This project does not let Sales members export customers');
    expect(said).toContain('Not allowed');
    await expectAccessible(page, 'export refused');
    await api(`/api/v1.7/app/${project.appId}`, ownerToken, { method: 'POST', body: { sales_export: 1 } });
    expect(pageErrors).toEqual([]);
  });

  it('shows an import still running after a reload, then that it finished, and opens its summary (in Chinese)', async () => {
    const context = await contextFor(1440, false, 'zh-CN');
    const page = await context.newPage();
    // The customer list's reads while 60,000 customers arrive on the live stream (coalesced: about one a second).
    let listReads = 0;
    page.on('request', (r) => {
      if (/\/member\/all\/customers/.test(new URL(r.url()).pathname)) listReads += 1;
    });
    const signIn = new SignInPage(page, 'zh-CN');
    await signIn.open(base);
    await signIn.signIn('sam@acme.example', PASSWORD);
    await page.waitForURL((u) => !u.pathname.includes('sign-in'));
    // An import large enough to be running while the page loads, started elsewhere (another tab, a script).
    const rows = Array.from({ length: 60_000 }, (_, i) => `Bulk ${i},1393${String(i).padStart(7, '0')}`);
    const body = new FormData();
    body.append('file', new Blob([['name,phone', ...rows].join('\r\n')], { type: 'text/csv' }), 'bulk.csv');
    const jobs = `${base}/api/v1.7/app/${project.appId}/member/${salesId}`;
    const auth = { authorization: `Bearer ${salesToken}` };
    const started = await fetch(`${jobs}/customer-imports`, { method: 'POST', headers: auth, body });
    const job = (await started.json()) as { status: number; data: { id: string; status: string } };
    expect(job).toMatchObject({ status: 1, data: { status: 'queued' } });

    const customers = new CustomersPage(page, 'zh-CN');
    await customers.open(base, project.appId);
    const banner = page.getByRole('alert').filter({ hasText: 'bulk.csv' });
    // While it runs: its progress ("正在导入 bulk.csv：已完成 N%。").
    const [runningBefore] = text('zh-CN', 'customers.import.runningBanner', { file: 'bulk.csv', percent: '§' }).split('§');
    const jobPath = `/api/v1.7/app/${project.appId}/member/${salesId}/customer-import/${job.data.id}`;
    // On a loaded machine the page may take longer than the import: the notice then says it finished, and
    // it may say so only when the job is done.
    await banner.waitFor({ timeout: 120_000 });
    if ((await banner.textContent())?.includes(runningBefore ?? '')) {
      // The list changes every second while customers arrive: a state caught in passing (a row being
      // drawn) may fail a check once; what stays wrong fails it for good.
      await expect.poll(() => seriousViolations(page), { timeout: 30_000, interval: 1000 }).toEqual([]);
    } else expect((await api<{ status: string }>(jobPath, salesToken)).status).toBe('done');
    // Once it is over, the notice stays and says so, until its summary is opened.
    await expect
      .poll(async () => (await api<{ status: string }>(jobPath, salesToken)).status, { timeout: 180_000, interval: 500 })
      .toBe('done');
    await banner
      .filter({
        hasText: new ImportWizard(page, 'zh-CN').summary(
          'bulk.csv',
          { created: 60_000, updated: 0, skipped: 0, failed: 0 },
          'finishedBanner',
        ),
      })
      // The page hears of the job's end by its next poll, later on a loaded machine.
      .waitFor({ timeout: 60_000 });
    await expectAccessible(page, 'finished import notice (zh-CN)');
    await shot(page, 'import-finished-notice-1440');
    await page.setViewportSize({ width: 375, height: 812 });
    await shot(page, 'import-finished-notice-375');
    await page.setViewportSize({ width: 1440, height: 900 });
    await banner.getByRole('button', { name: buttonName('zh-CN', 'customers.import.show') }).click();
    const wizard = new ImportWizard(page, 'zh-CN');
    await wizard.drawer.waitFor();
    await wizard.drawer.getByRole('progressbar').waitFor();
    await wizard.drawer.getByText(wizard.summary('bulk.csv', { created: 60_000, updated: 0, skipped: 0, failed: 0 })).waitFor();
    expect(await wizard.counts('did')).toEqual({ created: 60_000, updated: 0, skipped: 0, failed: 0 });
    await expectAccessible(page, 'import summary (zh-CN)');
    await wizard.button('customers.import.finish').click();
    await banner.waitFor({ state: 'detached' });
    expect(listReads).toBeLessThan(200);
    await context.close();
    // 60,000 rows take seconds alone and much longer beside the PostgreSQL lane on two cores.
  }, 300_000);
});
