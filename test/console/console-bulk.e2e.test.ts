// lanes: sqlite
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { CustomersPage } from '../../console/e2e/pages/CustomersPage.ts';
import { launchChromium, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { signedInPage } from '../helpers/console-session.ts';
import { type ProvisionedProject, provisionProject, registerByEmail, serveOnFreePort, useProcessDatabase } from '../helpers/process.ts';

/**
 * Bulk actions on the customer list in a real browser, against a real server process: the project's
 * owner picks three customers and assigns them to a Sales member (they move to that member's list),
 * then picks every customer matching a search, more than a page of them, and adds them to a group;
 * at 1440 px, and on a 375 px touch screen with the cards' checkboxes.
 */
const PASSWORD = 'a long enough password';
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
let ownerToken = '';
let salesId = 0;
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];

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

let ownerId = 0;

/** Customers of the project's owner, made through the API. */
async function addCustomers(names: string[]): Promise<void> {
  for (const name of names)
    await api(`/api/v1.7/app/${project.appId}/member/${ownerId}/customers`, ownerToken, { method: 'POST', body: { name } });
}

const signedIn = (width: number, touch: boolean) =>
  signedInPage(browser, base, '13700000002', { width, touch, lang: 'en-US', pageErrors, contexts });

/** Picks `option` in the open bulk dialog's select and starts the job; waits for its drawer to say it finished. */
async function pickAndStart(page: Page, label: string, option: string): Promise<void> {
  const dialog = page.getByRole('dialog').filter({ has: page.getByRole('combobox', { name: label }) });
  await dialog.getByRole('combobox', { name: label }).click();
  await page.locator('.ant-select-item-option', { hasText: option }).click();
  await dialog.getByRole('button', { name: text('en-US', 'customers.bulk.pick.ok') }).click();
}

async function finished(page: Page): Promise<{ done: string; failed: string }> {
  const drawer = page.locator('.ant-drawer-content');
  await drawer.getByText(text('en-US', 'customers.bulk.progress.status.done')).waitFor();
  const stat = (name: string) =>
    drawer
      .locator('.ant-statistic')
      .filter({ hasText: text('en-US', `customers.bulk.progress.${name}`) })
      .locator('.ant-statistic-content-value')
      .innerText();
  return { done: await stat('done'), failed: await stat('failed') };
}

beforeAll(async () => {
  base = await serveOnFreePort(processes, (own) => ({ PUBLIC_BASE_URL: own }));
  project = await provisionProject(base, processes.db.env, '13700000002');
  ownerToken = project.auth.authorization.slice('Bearer '.length);
  ownerId = ((await (await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken`, { headers: project.auth })).json()) as { id: number })
    .id;
  const sales = await registerByEmail(base, processes.db.env, { email: 'sara@acme.example', password: PASSWORD, nickname: 'Sara Sales' });
  const salesToken = sales.token;
  salesId = sales.id;
  await api(`/api/v1.7/app/${project.appId}/members`, ownerToken, { method: 'POST', body: { svc_user_id: salesId, role: 'Sales' } });
  await api(`/api/v1.7/user/membership/${project.appId}/accept`, salesToken, { method: 'POST' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

describe('bulk actions in the console', { timeout: 120_000 }, () => {
  for (const [width, touch, tag] of [
    [1440, false, 'Desk'],
    [375, true, 'Phone'],
  ] as const) {
    it(`picks three customers and assigns them to a Sales member; picks all matching a search and adds them to a group, at ${width} px`, async () => {
      const three = [1, 2, 3].map((i) => `Pick ${tag} ${i}`);
      await addCustomers([...three, `Keep ${tag}`]);
      await addCustomers(Array.from({ length: 23 }, (_, i) => `Lot${tag} ${String(i).padStart(2, '0')}`));
      const group = await api<{ id: string }>(`/api/v1.7/app/${project.appId}/customer-groups`, ownerToken, {
        method: 'POST',
        body: { name: `Fair ${tag}` },
      });

      const page = await signedIn(width, touch);
      const noise = watchNoise(page);
      const customers = new CustomersPage(page);
      await customers.open(base, project.appId, `?q=${encodeURIComponent(`Pick ${tag}`)}`);
      await customers.customerLink(three[2] as string).waitFor();
      for (const name of three) await page.getByRole('checkbox', { name: text('en-US', 'customers.bulk.pickRow', { name }) }).click();
      const toolbar = page.getByRole('toolbar', { name: text('en-US', 'customers.bulk.toolbar') });
      await toolbar.getByText(text('en-US', 'customers.bulk.selected', { count: 3 })).waitFor();
      await expectAccessible(page, `three chosen at ${width}`);
      await shot(page, `customers-bulk-selected-${width}`);
      await toolbar.getByRole('button', { name: text('en-US', 'customers.bulk.actions.assign') }).click();
      await expectAccessible(page, `assign dialog at ${width}`);
      await pickAndStart(page, text('en-US', 'customers.bulk.pick.assign.label'), 'Sara Sales');
      expect(await finished(page)).toEqual({ done: '3', failed: '0' });
      await expectAccessible(page, `assign result at ${width}`);
      await shot(page, `customers-bulk-result-${width}`);
      await page.locator('.ant-drawer-close').click();
      // They moved: the Sales member's list has them.
      await customers.open(base, project.appId, `?owner=${salesId}&q=${encodeURIComponent(`Pick ${tag}`)}`);
      for (const name of three) await customers.customerLink(name).waitFor();

      // All matching a search (23, more than a page of 20) into a group.
      await customers.open(base, project.appId, `?q=Lot${tag}`);
      await customers.customerLink(`Lot${tag} 22`).waitFor();
      if (width >= 768) await page.locator('thead .ant-checkbox-input').click();
      else
        for (let i = 22; i >= 3; i -= 1)
          await page
            .getByRole('checkbox', { name: text('en-US', 'customers.bulk.pickRow', { name: `Lot${tag} ${String(i).padStart(2, '0')}` }) })
            .click();
      await page.getByRole('button', { name: text('en-US', 'customers.bulk.selectAllMatchingN', { count: 23, formatted: '23' }) }).click();
      await toolbar.getByText(text('en-US', 'customers.bulk.allMatching')).waitFor();
      await expectAccessible(page, `all matching at ${width}`);
      await shot(page, `customers-bulk-all-matching-${width}`);
      await toolbar.getByRole('button', { name: text('en-US', 'customers.bulk.actions.group') }).click();
      await pickAndStart(page, text('en-US', 'customers.bulk.pick.group.label'), `Fair ${tag}`);
      expect(await finished(page)).toEqual({ done: '23', failed: '0' });
      const groups = await api<{ id: string; customerCount: number }[]>(`/api/v1.7/app/${project.appId}/customer-groups`, ownerToken);
      expect(groups.find((g) => g.id === group.id)?.customerCount).toBe(23);
      noise.stop();
      expect(noise.failures).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  }
});
