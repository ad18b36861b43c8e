// lanes: sqlite
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { shot } from '../helpers/console-checks.ts';
import { FIXTURE_FONTS, fixture } from '../helpers/files.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { type ProvisionedProject, provisionProject, serveOnFreePort, until, useProcessDatabase } from '../helpers/process.ts';

/**
 * A data room in a real browser (Debian's chromium, driven by playwright-core) against the real
 * server process: a reader on a phone (375 px, touch) opens a room of three documents, opens each
 * from the room's tree, reads pages for known times and goes back; the owner's view log has one
 * Duration item per document and page, each within a second of the time it was shown. The room's
 * page at 375 and 1440 px: no sideways scroll, rows a finger can hit (screenshots: `shot`). A room
 * link under an e-mail code and a watermark: the code the server mailed (a real SMTP server here)
 * opens the room on the phone, and its documents' pages load with the reader drawn in.
 */

const mailbox = await startMailbox();
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let p: ProvisionedProject;
const files: Record<'deck' | 'chinese' | 'photo', string> = { deck: '', chinese: '', photo: '' };
let link: { id: string; url: string };
let roomId = '';

async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...p.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { status: number; data: T };
  if (json.status !== 1) throw new Error(`${method} ${url}: ${JSON.stringify(json)}`);
  return json.data;
}

async function uploaded(name: string, as: string, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([fixture(name)], { type }), as);
  const res = await fetch(`${base}/api/v1.7/app/${p.appId}/files`, { method: 'POST', headers: p.auth, body: form });
  const id = ((await res.json()) as { data: { id: string } }).data.id;
  await until(
    `${as} to be rendered`,
    () => api<{ status: string }>('GET', `/api/v1.7/app/${p.appId}/file/${id}`),
    (f) => f.status === 'ready',
  );
  return id;
}

beforeAll(async () => {
  // Files go under the database's DATA_DIR (on PostgreSQL runs too, as the clients' CLI reads that environment).
  base = await serveOnFreePort(processes, (b) => ({
    PUBLIC_BASE_URL: b,
    FILE_FONT_DIR: FIXTURE_FONTS,
    SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
    SMTP_FROM: 'Rapport <rooms@example.com>',
  }));
  p = await provisionProject(base, processes.db.env, '13855550044');
  files.deck = await uploaded('deck.pdf', 'Q3 business review.pdf', 'application/pdf');
  files.chinese = await uploaded('chinese.pdf', '市场分析 Market analysis.pdf', 'application/pdf');
  files.photo = await uploaded('photo.png', 'Site photo.png', 'image/png');
  const room = await api<{ id: string }>('POST', `/api/v1.7/app/${p.appId}/rooms`, {
    name: 'Acme Corp — due diligence',
    items: [
      {
        type: 'folder',
        name: 'Financials',
        items: [{ type: 'file', file_id: files.deck }],
      },
      {
        type: 'folder',
        name: 'Market',
        items: [{ type: 'folder', name: 'China', items: [{ type: 'file', file_id: files.chinese }] }],
      },
      { type: 'file', file_id: files.photo },
    ],
  });
  roomId = room.id;
  link = await api('POST', `/api/v1.7/app/${p.appId}/links?with_url=1`, { name: 'Acme room', type: 4, room_id: room.id });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await mailbox.close();
});

interface ViewLog {
  leaveTime: string | null;
  totalPage: number;
  totalDuration: number;
  durations: { fileId: string; fileName: string; pageIndex: string; duration: string }[];
}

/** Waits until the page's `open` beacon is answered: reading is counted from then. */
async function opened(page: Page, go: () => Promise<unknown>): Promise<number> {
  const answered = page.waitForResponse((r) => r.url().endsWith('/events') && (r.request().postData() ?? '').includes('"type":"open"'));
  await go();
  const res = await answered;
  expect(await res.json()).toMatchObject({ status: 1, data: { counted: true } });
  return Date.now();
}

/** The room's tree as the page shows it: each row's text, folders first in their order. */
const rows = (page: Page) => page.locator('.tree .row').allInnerTexts();

describe('a reader on a phone reads a room', () => {
  let context: BrowserContext;
  const pageErrors: string[] = [];

  it('opens each of three documents from the tree; the view log has each document and page within a second', async () => {
    context = await personContext(browser, { width: 375, touch: true, pageErrors });
    const page = await context.newPage();
    const noise = watchNoise(page);
    await opened(page, () => page.goto(link.url));
    expect((await rows(page)).map((r) => r.replace(/\s+/g, ' ').trim())).toEqual([
      'Financials 1 document',
      'Q3 business review.pdf 3 pages',
      'Market 1 document',
      'China 1 document',
      '市场分析 Market analysis.pdf 2 pages',
      'Site photo.png 1 page',
    ]);

    // The deck: page 1 for ~3 s, then page 2 (the next button) for ~2 s, then back to the room.
    const deckOpen = await opened(page, () => page.getByRole('link', { name: /Q3 business review/ }).tap());
    expect(new URL(page.url()).pathname).toBe(`${new URL(link.url).pathname}/doc/${files.deck}`);
    await page.waitForTimeout(3000);
    const turned = Date.now();
    await page.locator('#next').tap();
    await expect.poll(() => page.locator('#current').textContent()).toBe('2');
    const turnShown = Date.now();
    await page.waitForTimeout(2000);
    const backAt = Date.now();
    await opened(page, () => page.getByRole('link', { name: /Back to Acme Corp/ }).tap());
    const backShown = Date.now();

    // The Chinese deck, in a folder inside a folder: page 1 for ~2.5 s.
    const chineseOpen = await opened(page, () => page.getByRole('link', { name: /市场分析/ }).tap());
    await page.waitForTimeout(2500);
    const chineseBack = Date.now();
    await opened(page, () => page.getByRole('link', { name: /Back to Acme Corp/ }).tap());
    const chineseBackShown = Date.now();

    // The photo: ~2 s, then the reader closes the page.
    const photoOpen = await opened(page, () => page.getByRole('link', { name: /Site photo/ }).tap());
    await page.waitForTimeout(2000);
    const closing = Date.now();
    await page.close();
    const closed = Date.now();
    noise.stop();
    expect(noise.failures).toEqual([]);
    expect(pageErrors).toEqual([]);

    const [log] = await until(
      'the view to be closed',
      () => api<ViewLog[]>('GET', `/api/v1.7/link/${link.id}/view-logs`),
      (logs) => logs.length > 0 && logs[0]?.leaveTime !== null,
    );
    const read = new Map(log?.durations.map((d) => [`${d.fileName} p${d.pageIndex}`, Number(d.duration)]));
    expect([...read.keys()]).toEqual([
      'Q3 business review.pdf p1',
      'Q3 business review.pdf p2',
      '市场分析 Market analysis.pdf p1',
      'Site photo.png p1',
    ]);
    expect(log?.durations.map((d) => d.fileId)).toEqual([files.deck, files.deck, files.chinese, files.photo]);
    // Each page's time: at least what the test waited less a second, at most the time it was shown plus a second.
    const within = (key: string, waited: number, shownFor: number) => {
      const ms = read.get(key) ?? -1;
      expect(ms, key).toBeGreaterThanOrEqual(waited - 1000);
      expect(ms, key).toBeLessThanOrEqual(shownFor + 1000);
    };
    within('Q3 business review.pdf p1', 3000, turnShown - deckOpen);
    within('Q3 business review.pdf p2', 2000, backAt - turned);
    within('市场分析 Market analysis.pdf p1', 2500, chineseBack - chineseOpen);
    within('Site photo.png p1', 2000, closed - photoOpen);
    expect(log?.totalPage).toBe(4);
    // The room's own page counts no time: the total is the documents' time.
    expect(log?.totalDuration).toBeLessThanOrEqual(
      turnShown - deckOpen + (backAt - turned) + (chineseBack - chineseOpen) + (closed - photoOpen) + 2000,
    );
    expect(backShown).toBeLessThan(chineseOpen + 1);
    expect(chineseBackShown).toBeLessThanOrEqual(photoOpen);
    expect(closing).toBeLessThanOrEqual(closed);
    await context.close();
  });
});

describe("the room's page", () => {
  for (const width of [375, 1440]) {
    it(`fits ${width} px with rows a finger can hit, folders that fold, and documents that open`, async () => {
      const pageErrors: string[] = [];
      const context = await personContext(browser, { width, touch: width === 375, pageErrors });
      const page = await context.newPage();
      const noise = watchNoise(page);
      await page.goto(link.url);
      await page.locator('.tree').waitFor();
      const layout = (await page.evaluate(`({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        rows: [...document.querySelectorAll('.tree .row')].map((r) => r.getBoundingClientRect().height),
        bar: document.querySelector('.bar').getBoundingClientRect().height,
      })`)) as { scrollWidth: number; innerWidth: number; rows: number[]; bar: number };
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
      expect(Math.min(...layout.rows)).toBeGreaterThanOrEqual(44);
      expect(layout.bar).toBeGreaterThanOrEqual(48);
      await shot(page, `room-tree-${width}`);
      // A folder folds away and opens again.
      const market = page.locator('summary', { hasText: 'Market' });
      await (width === 375 ? market.tap() : market.click());
      await expect.poll(() => page.getByRole('link', { name: /市场分析/ }).isVisible()).toBe(false);
      await (width === 375 ? market.tap() : market.click());
      await expect.poll(() => page.getByRole('link', { name: /市场分析/ }).isVisible()).toBe(true);
      // A document's page at this width, with the way back.
      await page.getByRole('link', { name: /Q3 business review/ }).click();
      await page.locator('#page-1 img').waitFor();
      await expect
        .poll(() => page.locator('#page-1 img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0);
      await shot(page, `room-document-${width}`);
      noise.stop();
      expect(noise.failures).toEqual([]);
      expect(pageErrors).toEqual([]);
      await context.close();
    });
  }
});

describe('a room under an e-mail code and a watermark', () => {
  it('on a phone: the code mailed to the reader opens the room, and a document shows its watermarked pages', async () => {
    const guarded = await api<{ url: string }>('POST', `/api/v1.7/app/${p.appId}/links?with_url=1`, {
      name: 'Acme room, verified',
      type: 4,
      room_id: roomId,
      email_verify: 1,
      watermark: 1,
    });
    const pageErrors: string[] = [];
    const context = await personContext(browser, { width: 375, touch: true, pageErrors });
    const page = await context.newPage();
    const noise = watchNoise(page);
    await page.goto(guarded.url);
    const before = mailbox.inbox.length;
    await page.locator('input[name="email"]').fill('ada@example.com');
    await page.getByRole('button', { name: 'Send me a code' }).tap();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    const mail = (await mailbox.waitFor(before + 1)).at(-1);
    expect(mail?.to).toEqual(['ada@example.com']);
    const code = /\b(\d{6})\b/.exec(mail?.mail.text ?? '')?.[1] as string;
    await page.locator('input[name="code"]').fill(code);
    await page.getByRole('button', { name: 'Open' }).tap();
    await page.locator('.tree').waitFor();
    expect((await rows(page)).length).toBe(6);
    await page.getByRole('link', { name: /Q3 business review/ }).tap();
    // Drawn for this reader as it is asked for: a moment longer than a stored image on a loaded machine.
    await expect
      .poll(() => page.locator('#page-1 img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth), {
        timeout: 30_000,
        interval: 250,
      })
      .toBeGreaterThan(0);
    // The page image is drawn for this reader: never stored by the browser.
    const image = await page.evaluate(`fetch(document.querySelector('#page-1 img').src)
      .then((res) => ({ status: res.status, cache: res.headers.get('cache-control') }))`);
    expect(image).toEqual({ status: 200, cache: 'no-store, private' });
    expect(await page.locator('body').getAttribute('class')).toContain('wm');
    await shot(page, 'room-document-watermarked-375');
    noise.stop();
    expect(noise.failures).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
