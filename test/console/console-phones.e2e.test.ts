// lanes: sqlite
import { type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { CustomersPage } from '../../console/e2e/pages/CustomersPage.ts';
import { SettingsPage } from '../../console/e2e/pages/SettingsPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { type ProvisionedProject, freePort, provisionProject, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * International contact data in a real browser against a real server process: the owner of a project
 * sets its region to the United Kingdom in the settings, then creates customers in English with UK
 * numbers as people write them; the form leaves out the Chinese original's province, county, sex and
 * age band, and refuses a number that is none, on its field. At 1440 px and at 375 px on a touch screen.
 */
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
let token = '';
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];

async function api<T>(path: string, init: { method?: string; body?: unknown; query?: Record<string, string> } = {}): Promise<T> {
  const url = new URL(`${base}${path}`);
  for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
  const res = await fetch(url, {
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
  processes.started(runCli(['serve'], { ...processes.db.env, PORT: String(port), LOG_LEVEL: 'warn' }));
  base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/healthz`);
  project = await provisionProject(base, processes.db.env, '13700000002');
  token = project.auth.authorization.slice('Bearer '.length);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

describe('phone numbers of a UK project in the console', { timeout: 120_000 }, () => {
  for (const [width, touch, mobile] of [
    [1440, false, '07911 123456'],
    [375, true, '+44 7700 900123'],
  ] as const) {
    it(`sets the region and takes UK numbers in an English form without the Chinese fields, at ${width} px`, async () => {
      const context = await personContext(browser, { width, touch, locale: 'en-GB', pageErrors, timeout: 30_000 });
      contexts.push(context);
      const page = await context.newPage();
      const noise = watchNoise(page);
      const signIn = new SignInPage(page);
      await signIn.open(base);
      await signIn.signIn('13700000002', 'long enough pw');
      await page.waitForURL((u) => !u.pathname.includes('sign-in'));

      // The region, in the project's settings: a projects made through the API reads numbers as China's until set.
      const settings = new SettingsPage(page);
      await settings.open(base, project.appId);
      const region = page.getByLabel(text('en-US', 'settings.region'), { exact: true });
      // Typed into the select's search, as a person with a keyboard does.
      await region.focus();
      await page.keyboard.type('United Kingdom');
      await page.locator('.ant-select-item-option[title="United Kingdom (GB)"]').waitFor();
      await page.keyboard.press('Enter');
      await page
        .getByRole('button', { name: text('en-US', 'common.actions.save') })
        .first()
        .click();
      await expect.poll(async () => (await api<{ region: string }>(`/api/v1.7/app/${project.appId}`)).region).toBe('GB');
      await expectAccessible(page, `settings with the region at ${width}`);
      await shot(page, `settings-region-${width}`);

      // The customer form: English labels, no province, county, sex or age band.
      const customers = new CustomersPage(page);
      await customers.open(base, project.appId);
      // The form is loaded when first opened (pressed again if the press went unheard).
      await customers.openNew();
      for (const hidden of ['province', 'county', 'sex', 'ageState']) expect(await customers.field(hidden).count(), hidden).toBe(0);
      for (const shown of ['name', 'phone', 'fixedPhone', 'email', 'city']) await customers.field(shown).waitFor();
      await expectAccessible(page, `the customer form of a UK project at ${width}`);
      await shot(page, `customer-form-gb-${width}`);

      // A number that is none: refused on its field, in the user's language.
      await customers.fillNew({ name: `Bad number ${width}`, phone: '12' });
      noise.stop();
      await customers.save();
      expect(await customers.fieldError('phone')).toContain('phone is not a valid mobile number for region GB');
      // A UK number as people write it: saved as written, found by its international form.
      await customers.field('phone').fill(mobile);
      await customers.field('fixedPhone').fill('020 7946 0958');
      await customers.field('name').fill(`Jane ${width}`);
      await customers.save();
      await customers.form.waitFor({ state: 'hidden' });
      const found = await api<{ name: string; phone: string; fixedPhone: string }[]>(`/api/v1.7/app/${project.appId}/customer/appSearch`, {
        query: { condition: mobile.startsWith('+') ? '07700 900123' : '+447911123456' },
      });
      expect(found.map((c) => [c.name, c.phone, c.fixedPhone])).toEqual([[`Jane ${width}`, mobile, '020 7946 0958']]);
      expect(pageErrors).toEqual([]);
    });
  }
});
