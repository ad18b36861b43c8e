// lanes: sqlite
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCanvas } from '@napi-rs/canvas';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { DESKTOP_UA, PHONE_UA, launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { provisionProject, serveOnFreePort, useProcessDatabase } from '../helpers/process.ts';

/** Whether the page scrolls sideways (run in the page). */
const fitsWidth = () => {
  const g = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
  return g.document.documentElement.scrollWidth <= g.innerWidth;
};
/** An image's loaded width, 0 until it has loaded (run in the page). */
const loadedWidth = (img: unknown) => {
  const i = img as { complete: boolean; naturalWidth: number };
  return i.complete ? i.naturalWidth : 0;
};

/**
 * The website page's installation check and the project's logo, in Chromium against a real server:
 * the snippet installed on a page served here, a visitor (a normal browser) opening it, the check
 * turning from "no event yet" to the page's host; the logo uploaded in the settings and shown by the
 * viewer with the project's name, at 375 and 1440 px, axe-checked, screenshots to CONSOLE_SHOTS_DIR.
 */
const PHONE = '13700000002';
const processes = useProcessDatabase();
let base = '';
let appId = '';
let auth: { authorization: string };
let site: http.Server;
let siteOrigin = '';
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
const pageErrors: string[] = [];

async function signedIn(width: number, touch: boolean): Promise<BrowserContext> {
  const context = await personContext(browser, { width, touch, pageErrors });
  const res = await context.request.post(`${base}/svcuser/console/session`, {
    headers: { origin: base },
    form: { username: PHONE, password: 'long enough pw' },
  });
  expect(res.ok(), await res.text()).toBe(true);
  return context;
}

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  base = await serveOnFreePort(processes, (own) => ({ PUBLIC_BASE_URL: own }));
  const project = await provisionProject(base, processes.db.env, PHONE);
  appId = project.appId;
  auth = project.auth;
  browser = await launchChromium();
  desktop = await signedIn(1440, false);
  mobile = await signedIn(375, true);
  // The project's own website: one page carrying the snippet as the site page shows it.
  let snippet = '';
  site = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!DOCTYPE html><html lang="en"><head><title>Pricing</title>${snippet}</head><body><main><h1>Pricing</h1></main></body></html>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' };
  const edit = await fetch(`${base}/api/v1.7/app/${appId}`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ site_origins: siteOrigin }),
  });
  expect(await edit.json()).toEqual({ status: 1, data: true });
  const settings = (await (await fetch(`${base}/api/v1.7/app/${appId}/site`, { headers: auth })).json()) as { data: { snippet: string } };
  snippet = `<script>window.rapport=window.rapport||function(){(rapport.q=rapport.q||[]).push(arguments)};</script>${settings.data.snippet}`;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
});

async function openSitePage(page: Page) {
  await page.goto(`${base}/console/p/${appId}/site`);
  await page.getByRole('heading', { level: 1, name: text('en-US', 'site.title') }).waitFor();
}

describe('the installation check and the logo', { timeout: 120_000 }, () => {
  it('says no event has arrived, then names the site once a visitor opened a page with the snippet', async () => {
    const owner = await desktop.newPage();
    const noise = watchNoise(owner);
    await openSitePage(owner);
    await owner.getByText(text('en-US', 'site.check.none')).waitFor();
    await expectAccessible(owner, 'site page, no event yet');
    await shot(owner, 'site-check-none-1440');

    // A visitor in an ordinary browser opens the site's page.
    const visitorContext = await browser.newContext({ userAgent: DESKTOP_UA });
    const visitor = await visitorContext.newPage();
    const sent = visitor.waitForResponse((r) => r.url().startsWith(`${base}/t/collect`) && r.request().method() === 'POST');
    await visitor.goto(`${siteOrigin}/pricing`);
    expect((await sent).status()).toBe(200);
    await visitorContext.close();

    const check = owner.getByRole('button', { name: text('en-US', 'site.check.recheck') });
    await expect
      .poll(async () => {
        await check.click();
        return owner.getByText('Last event received from 127.0.0.1').count();
      })
      .toBe(1);
    await expect.poll(() => owner.getByTestId('last-event-time').textContent()).toMatch(/seconds? ago|a few seconds ago|a minute ago/);
    await expectAccessible(owner, 'site page, event received');
    await shot(owner, 'site-check-received-1440');
    noise.stop();
    expect(noise.failures).toEqual([]);

    const phone = await mobile.newPage();
    const phoneNoise = watchNoise(phone);
    await openSitePage(phone);
    await phone.getByText('Last event received from 127.0.0.1').waitFor();
    expect(await phone.evaluate(fitsWidth)).toBe(true);
    await expectAccessible(phone, 'site page at 375 px');
    await shot(phone, 'site-check-received-375');
    phoneNoise.stop();
    expect(phoneNoise.failures).toEqual([]);
  });

  it('uploads a logo in the settings; the viewer shows it with the project name, as its icon too', async () => {
    const owner = await desktop.newPage();
    const noise = watchNoise(owner);
    await owner.goto(`${base}/console/p/${appId}/settings`);
    await owner.getByText(text('en-US', 'settings.logo.none')).waitFor();
    const canvas = createCanvas(192, 64);
    const g = canvas.getContext('2d');
    g.fillStyle = '#0b57d0';
    g.fillRect(0, 0, 192, 64);
    g.fillStyle = '#ffffff';
    g.font = 'bold 36px sans-serif';
    g.fillText('ACME', 40, 46);
    await owner
      .locator('input[type="file"]')
      .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: canvas.toBuffer('image/png') });
    const logo = owner.getByRole('img', { name: text('en-US', 'settings.logo.current') });
    await logo.waitFor();
    expect(await logo.evaluate(loadedWidth)).toBe(192);
    await expectAccessible(owner, 'settings with a logo');
    await shot(owner, 'settings-logo-1440');
    noise.stop();
    expect(noise.failures).toEqual([]);

    // A shared web page link, framing the project's own page.
    const created = await fetch(`${base}/api/v1.7/app/${appId}/links`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'Pricing page', type: '2', website: `${siteOrigin}/pricing`, embed: '1' }),
    });
    const link = ((await created.json()) as { data: { shareToken: string } }).data;
    for (const [width, ua] of [
      [375, PHONE_UA],
      [1440, DESKTOP_UA],
    ] as const) {
      const reader = await browser.newContext({
        viewport: { width, height: 800 },
        userAgent: ua,
        isMobile: width < 600,
        hasTouch: width < 600,
      });
      const page = await reader.newPage();
      await page.goto(`${base}/l/${link.shareToken}`);
      const bar = page.locator('header.bar');
      await bar.locator('.brand', { hasText: 'Provisioned' }).waitFor();
      const img = bar.locator('img.logo');
      await expect.poll(() => img.evaluate(loadedWidth)).toBe(192);
      const icon = await page.locator('link[rel="icon"]').getAttribute('href');
      expect(icon).toMatch(new RegExp(`^/logo/${appId}/[A-Za-z0-9_-]{22}$`));
      expect(await page.evaluate(fitsWidth)).toBe(true);
      await shot(page, `viewer-branded-${width}`);
      await reader.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
