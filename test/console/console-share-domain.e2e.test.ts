// lanes: sqlite
import { type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { ERROR_CODES } from '../../src/http/error-codes.ts';
import { SettingsPage } from '../../console/e2e/pages/SettingsPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { launchChromium, personContext } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { type ProvisionedProject, freePort, provisionProject, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * The project's share domain in the console's settings (docs/projects.md, "Share domain"): the help
 * names the server's host for the DNS record, a refused domain is said on its field, in the user's
 * language, and a valid one is saved as the server keeps it. In English and in Chinese.
 */
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

const shareDomainOf = async () =>
  (
    (await (await fetch(`${base}/api/v1.7/app/${project.appId}`, { headers: project.auth })).json()) as {
      data: { shareDomain: string };
    }
  ).data.shareDomain;

beforeAll(async () => {
  const port = await freePort();
  processes.started(
    runCli(['serve'], { ...processes.db.env, PORT: String(port), LOG_LEVEL: 'warn', PUBLIC_BASE_URL: `http://rapport.example:${port}` }),
  );
  base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/healthz`);
  project = await provisionProject(base, processes.db.env, '13700000003');
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

describe('the share domain in the settings', { timeout: 120_000 }, () => {
  for (const lang of ['en-US', 'zh-CN'] as const) {
    it(`refuses a URL on its field and saves a domain, in ${lang}`, async () => {
      const context = await personContext(browser, { width: 1440, touch: false, locale: lang, pageErrors, timeout: 30_000 });
      contexts.push(context);
      const page = await context.newPage();
      const signIn = new SignInPage(page, lang);
      await signIn.open(base);
      await signIn.signIn('13700000003', 'long enough pw');
      await page.waitForURL((u) => !u.pathname.includes('sign-in'));
      const settings = new SettingsPage(page, lang);
      await settings.open(base, project.appId);
      // The help names the host the DNS record points at.
      await page.getByText(text(lang, 'settings.shareDomainHelp', { host: 'rapport.example' })).waitFor();

      const before = await shareDomainOf();
      await settings.shareDomain.fill('https://share.example.com/deck');
      await settings.save();
      await page.getByText(ERROR_CODES.share_domain_invalid[lang === 'en-US' ? 'en' : 'zh']).waitFor();
      expect(await shareDomainOf()).toBe(before);

      const domain = `Share-${lang}.Example.COM`;
      await settings.shareDomain.fill(domain);
      await settings.save();
      await expect.poll(shareDomainOf).toBe(domain.toLowerCase());
      await expectAccessible(page, `settings with the share domain in ${lang}`);
      if (lang === 'en-US') await shot(page, 'settings-share-domain-1440');
      expect(pageErrors).toEqual([]);
    });
  }
});
