// lanes: sqlite
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP_UA, PHONE_UA, launchChromium } from '../helpers/browser.ts';
import { fixture } from '../helpers/files.ts';
import { type ProvisionedProject, freePort, provisionProject, runCli, until, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * A watermarked link in a real browser (Debian's chromium) against the real server: the pages carry
 * the watermark, and the viewer's deterrents (docs/links.md, "Watermarks and deterrence") hold: the
 * document blurs when the window loses focus or the page is hidden, no context menu or dragging on
 * the pages, no selecting, nothing printed. Screenshots at 375 and 1440 px go to
 * `VIEWER_SCREENSHOTS` when it is set.
 */
const processes = useProcessDatabase();
let dataDir = '';
let base = '';
let browser: Browser;
let p: ProvisionedProject;
let url = '';

async function api<T>(method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...p.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { status: number; data: T };
  if (json.status !== 1) throw new Error(`${method} ${route}: ${JSON.stringify(json)}`);
  return json.data;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-watermark-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = { ...processes.db.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: base };
  const server = processes.started(runCli(['serve'], env));
  await waitForOk(`${base}/healthz`);
  p = await provisionProject(base, env, `1350000${String(process.pid % 10000).padStart(4, '0')}`);
  const form = new FormData();
  form.append('file', new Blob([fixture('deck.pdf')], { type: 'application/pdf' }), 'Q3 review.pdf');
  const uploaded = await fetch(`${base}/api/v1.7/app/${p.appId}/files`, { method: 'POST', headers: p.auth, body: form });
  const fileId = ((await uploaded.json()) as { data: { id: string } }).data.id;
  await until(
    'the deck to be rendered',
    () => api<{ status: string }>('GET', `/api/v1.7/app/${p.appId}/file/${fileId}`),
    (f) => f.status === 'ready',
  );
  const link = await api<{ url: string }>('POST', `/api/v1.7/app/${p.appId}/links?with_url=1`, {
    name: 'Q3 review',
    file_id: fileId,
    watermark: 1,
    allow_download: 1,
  });
  url = link.url;
  expect(server.output()).not.toContain('"level":50');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The document's blur, as the browser computes it: `none` when it is not veiled. */
const deckFilter = (page: Page) => page.evaluate('getComputedStyle(document.getElementById("deck")).filter') as Promise<string>;

/** Sends the window an event (`blur`, `focus`) as the browser does when it loses or gets the focus. */
const windowEvent = (page: Page, type: 'blur' | 'focus') => page.evaluate(`window.dispatchEvent(new Event('${type}'))`);

/** The first page's image once it has loaded. */
const firstPageLoaded = (page: Page) =>
  page.locator('#page-1 img').evaluate((img) => {
    const i = img as unknown as { complete: boolean; naturalWidth: number };
    return i.complete && i.naturalWidth > 0;
  });

async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.VIEWER_SCREENSHOTS;
  if (dir) await page.screenshot({ path: path.join(dir, `viewer-watermark-${name}.png`), fullPage: name === '375' });
}

describe('a watermarked document in the browser', () => {
  it('at 375 px: the page images carry the watermark, one refused is asked again; the document blurs on blur and on a hidden page', async () => {
    const context = await browser.newContext({
      viewport: { width: 375, height: 812 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      userAgent: PHONE_UA,
    });
    const page = await context.newPage();
    // The server too busy to draw page 3 the first time: the viewer asks for it again.
    let refused = 0;
    await page.route(/\/page\/3\?/, async (route) => {
      if (refused++ === 0) return route.fulfill({ status: 503, headers: { 'retry-after': '2' }, body: '' });
      return route.continue();
    });
    const image = page.waitForResponse((r) => /\/page\/1\?/.test(r.url()));
    await page.goto(url);
    const res = await image;
    expect(res.status()).toBe(200);
    expect(res.headers()['cache-control']).toBe('no-store, private');
    await expect.poll(() => firstPageLoaded(page)).toBe(true);
    expect(await page.locator('body').getAttribute('class')).toBe('wm');
    expect(await deckFilter(page)).toBe('none');
    await screenshot(page, '375');
    await page.locator('#page-3').scrollIntoViewIfNeeded();
    await expect
      .poll(
        () =>
          page.locator('#page-3 img').evaluate((img) => {
            const i = img as unknown as { complete: boolean; naturalWidth: number };
            return i.complete && i.naturalWidth > 0;
          }),
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(refused).toBe(2);
    await page.locator('#page-1').scrollIntoViewIfNeeded();

    // The window loses focus (another window, a screenshot tool): blurred; back: clear.
    await windowEvent(page, 'blur');
    await expect.poll(() => deckFilter(page)).toMatch(/^blur\(/);
    await screenshot(page, '375-veiled');
    await windowEvent(page, 'focus');
    await expect.poll(() => deckFilter(page)).toBe('none');

    // The page is hidden (another tab in front, the app switcher): blurred while hidden. Headless
    // Chromium keeps a page visible whichever tab is in front: the document says it is hidden.
    const visibility = (state: 'hidden' | 'visible') =>
      page.evaluate(`(() => {
        if ('${state}' === 'hidden') Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        else delete document.visibilityState;
        document.dispatchEvent(new Event('visibilitychange'));
      })()`);
    await visibility('hidden');
    await expect.poll(() => deckFilter(page)).toMatch(/^blur\(/);
    await visibility('visible');
    await windowEvent(page, 'focus');
    await expect.poll(() => deckFilter(page)).toBe('none');
    await context.close();
  });

  it('at 1440 px: no context menu, dragging or selecting on the pages, and nothing of them printed', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, userAgent: DESKTOP_UA });
    const page = await context.newPage();
    await page.goto(url);
    await expect.poll(() => firstPageLoaded(page)).toBe(true);
    await screenshot(page, '1440');

    const deterred = await page.evaluate(`(() => {
      const image = document.querySelector('#page-1 img');
      const menu = new MouseEvent('contextmenu', { bubbles: true, cancelable: true });
      document.querySelector('#page-1').dispatchEvent(menu);
      const drag = new Event('dragstart', { bubbles: true, cancelable: true });
      image.dispatchEvent(drag);
      const title = new MouseEvent('contextmenu', { bubbles: true, cancelable: true });
      document.querySelector('.bar').dispatchEvent(title);
      return {
        menu: menu.defaultPrevented,
        drag: drag.defaultPrevented,
        barMenu: title.defaultPrevented,
        draggable: image.draggable,
        pointer: getComputedStyle(image).pointerEvents,
        select: getComputedStyle(document.getElementById('deck')).userSelect,
      };
    })()`);
    // The pages' menu and drag are refused; the rest of the page keeps its own.
    expect(deterred).toEqual({ menu: true, drag: true, barMenu: false, draggable: false, pointer: 'none', select: 'none' });

    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#deck').isVisible()).toBe(false);
    expect(await page.locator('.print-note').textContent()).toContain('cannot be printed');
    expect(await page.locator('.print-note').isVisible()).toBe(true);
    await page.emulateMedia({ media: 'screen' });
    expect(await page.locator('.print-note').isVisible()).toBe(false);

    // The download is the watermarked PDF.
    const download = await page.request.get(`${url}/download`);
    expect(download.headers()['content-type']).toBe('application/pdf');
    expect((await download.body()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await context.close();
  });
});
