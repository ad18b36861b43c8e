// lanes: sqlite
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lang, text } from '../../console/e2e/locale.ts';
import { LinksPage } from '../../console/e2e/pages/LinksPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { PHONE_UA, launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { SHOTS_DIR, expectAccessible, shot } from '../helpers/console-checks.ts';
import { type ProvisionedProject, freePort, provisionProject, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * A link's reading analytics on its page in the console, in a real browser against a real server
 * process: a deck read by a reader, then, as its new version, by three more through the viewer's
 * beacons (in real time: the server credits what the wall clock allows). At 1440 px in English and
 * at 375 px on a touch screen in Chinese, the link's page shows first, above its address and
 * settings, the KPI cards (views, unique viewers, completion, median time) of the current version,
 * the time on each page beside the page's image with the drop-off page marked, and who read it;
 * the earlier version is picked and its figures shown; the readers' CSV is downloaded. Screenshots
 * of each; axe on each; no failed request, no console error.
 */
const PHONE = '13700000091';
const DECK = new URL('../fixtures/files/deck.pdf', import.meta.url).pathname;
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
let link: { id: string; url: string; name: string };
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api<T>(path: string, init: { method?: string; body?: unknown; form?: FormData } = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...project.auth, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    ...(init.body ? { body: JSON.stringify(init.body) } : init.form ? { body: init.form } : {}),
  });
  const body = (await res.json()) as { status: number; data: T };
  expect(body.status, JSON.stringify(body)).toBe(1);
  return body.data;
}

/** Uploads the deck (as a new version of `fileId` when given) and waits until its pages are rendered. */
async function uploadDeck(fileId?: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(DECK)], { type: 'application/pdf' }), 'Pricing 2027.pdf');
  const url = fileId === undefined ? `/api/v1.7/app/${project.appId}/files` : `/api/v1.7/app/${project.appId}/file/${fileId}`;
  const id = (await api<{ id: string }>(url, { method: 'POST', form })).id;
  for (let i = 0; ; i += 1) {
    const status = (await api<{ status: string }>(`/api/v1.7/app/${project.appId}/file/${id}`)).status;
    if (status === 'ready') return id;
    if (status === 'failed' || i > 600) throw new Error(`the deck is ${status}`);
    await sleep(100);
  }
}

/**
 * A reader on a phone (a visitor cookie of its own): opens the link and reads the pages, each for its
 * milliseconds of real time with a heartbeat at the end, as the viewer's script does; then leaves.
 */
async function reading(pages: [page: number, ms: number][]): Promise<void> {
  const opened = await fetch(link.url, { headers: { 'user-agent': PHONE_UA } });
  const cookie = opened.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const token = (JSON.parse(/id="rapport-viewer">(.*?)<\/script>/s.exec(await opened.text())?.[1] ?? '{}') as { token: string }).token;
  expect(token).toBeTruthy();
  let seq = 0;
  const dwell: Record<string, number> = {};
  const send = async (type: string, page: number) => {
    seq += 1;
    const res = await fetch(`${link.url}/events`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': PHONE_UA, cookie },
      body: JSON.stringify({ type, seq, token, page, ...(type === 'open' ? {} : { dwell }) }),
    });
    expect(res.status, await res.text()).toBe(200);
  };
  await send('open', pages[0]?.[0] ?? 1);
  for (const [page, ms] of pages) {
    await send('page', page);
    await sleep(ms);
    dwell[String(page)] = (dwell[String(page)] ?? 0) + ms;
    await send('hb', page);
  }
  await send('leave', pages[pages.length - 1]?.[0] ?? 1);
}

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  processes.started(
    runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', PUBLIC_BASE_URL: base }),
  );
  await waitForOk(`${base}/healthz`);
  project = await provisionProject(base, processes.db.env, PHONE);
  const fileId = await uploadDeck();
  link = await api(`/api/v1.7/app/${project.appId}/links`, {
    method: 'POST',
    body: { name: 'Pricing deck 2027', file_id: fileId, with_url: 1 },
  });
  // Version 1: one reader, the first page only.
  await reading([[1, 1500]]);
  // Version 2 (the same deck again): three readers at once, one of them to the end.
  await uploadDeck(fileId);
  await sleep(5500); // the viewer keeps what it read of a file a few seconds
  await Promise.all([
    reading([
      [1, 2000],
      [2, 1500],
      [3, 2500],
    ]),
    reading([
      [1, 3000],
      [2, 1000],
    ]),
    reading([[1, 2000]]),
  ]);
  const figures = await api<{ versions: { version: number; views: number }[] }>(`/api/v1.7/app/${project.appId}/link/${link.id}/analytics`);
  expect(figures.versions.map((v) => [v.version, v.views])).toEqual([
    [2, 3],
    [1, 1],
  ]);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

async function signedIn(width: number, touch: boolean, lang: Lang): Promise<Page> {
  const context = await personContext(browser, { width, touch, locale: lang, pageErrors, timeout: 30_000 });
  contexts.push(context);
  const page = await context.newPage();
  const signIn = new SignInPage(page, lang);
  await signIn.open(base);
  await signIn.signIn(PHONE, 'long enough pw');
  await page.waitForURL((u) => !u.pathname.includes('sign-in'));
  return page;
}

describe("a link's reading analytics on its page", { timeout: 180_000 }, () => {
  for (const [width, touch, lang] of [
    [1440, false, 'en-US'],
    [375, true, 'zh-CN'],
  ] as const) {
    it(`at ${width} px (${lang}): the KPI cards and the time on each page first, who read it, an earlier version, the CSV`, async () => {
      const page = await signedIn(width, touch, lang);
      const noise = watchNoise(page);
      const links = new LinksPage(page, lang);
      await links.open(base, project.appId);
      await links.link(link.name).click();
      await links.detail.waitFor();
      // The current version's figures: three views, three readers, completion 2/3 on average, a median time in seconds
      // (what real time credited: about 4 s).
      await links.kpi('views').getByText('3', { exact: true }).waitFor();
      await expect.poll(() => links.kpi('viewers').innerText()).toContain('3');
      await expect.poll(() => links.kpi('completion').innerText()).toContain('67%');
      await expect.poll(() => links.kpi('median').innerText()).toMatch(/\d+ (s|秒)/);
      // The chart (ECharts, loaded on demand) with each page's image, and the drop-off page told.
      await links.pageChart.locator('canvas').waitFor();
      await links.analytics.getByText(text(lang, 'linkAnalytics.chart.dropOffText', { page: 1, share: 33 })).waitFor();
      // First on the link's page: above its address, QR code and settings.
      const analyticsBox = await links.analytics.boundingBox();
      const settingsBox = await links.settings.boundingBox();
      expect(analyticsBox && settingsBox && analyticsBox.y + 200 < settingsBox.y).toBe(true);
      await expect.poll(() => links.readerRows().count()).toBe(3);
      // The page's images have come (the chart is drawn again with them).
      await page.waitForTimeout(1500);
      await expectAccessible(page, `link analytics ${width}`);
      await shot(page, `link-analytics-${width}`);
      // The analytics alone, whole (a phone's screen shows a part of it at a time: its page's shot).
      if (width === 1440) await links.analytics.screenshot({ path: path.join(SHOTS_DIR, 'link-analytics-card-1440.png') });

      // The earlier version: one view of page 1, its reader alone.
      await links.pickVersion(text(lang, 'linkAnalytics.version.option', { version: 1 }));
      await expect.poll(() => links.kpi('views').innerText()).toMatch(/^[^\d]*1\b/);
      await expect.poll(() => links.readerRows().count()).toBe(1);
      await links.analytics.getByText(text(lang, 'linkAnalytics.version.earlier')).waitFor();
      await shot(page, `link-analytics-earlier-${width}`);

      // The readers of that version as CSV.
      const [download] = await Promise.all([page.waitForEvent('download'), links.exportCsv.click()]);
      const csv = fs.readFileSync((await download.path()) as string, 'utf8');
      const lines = csv
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
      expect(lines[0]).toBe('viewerId,customerId,viewerName,views,completion,seconds,lastViewedAt');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(/^[\w-]+,,,1,0\.3333,\d+(\.\d)?,\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

      expect(noise.failures).toEqual([]);
      noise.stop();
    });
  }

  it('made no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
