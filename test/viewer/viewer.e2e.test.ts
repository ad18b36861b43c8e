// lanes: sqlite
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext } from 'playwright-core';
import { DESKTOP_UA, PHONE_UA, launchChromium, watchNoise } from '../helpers/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/files.ts';
import { freePort, runCli, until, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * The share-link viewer in a real browser (Debian's chromium, driven by playwright-core) against the
 * real server process: a customer reads a deck on a phone-sized screen, page by page, and the owner
 * sees the view log with each page's time, the behaviour records, the overview, and the open on their
 * live stream; a reader fills the form and becomes a customer with their earlier view joined.
 */

const processes = useProcessDatabase();
let dataDir = '';
let base = '';
let browser: Browser;

interface Account {
  id: number;
  auth: { authorization: string };
}
let master: Account;
let sales: Account;
let appId = '';
let fileId = '';

const JSON_HEADERS = { 'content-type': 'application/json' };

async function api<T>(method: string, url: string, who: Account, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...who.auth, ...(body === undefined ? {} : JSON_HEADERS) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { status: number; data: T };
  if (json.status !== 1) throw new Error(`${method} ${url}: ${JSON.stringify(json)}`);
  return json.data;
}

async function account(basic: string, phone: string): Promise<Account> {
  const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
  await fetch(`${base}/svcuser/oauth2/register`, { method: 'POST', headers: form, body: `phoneNum=${phone}&password=long+enough+pw` });
  const login = await fetch(`${base}/svcuser/oauth2/access_token`, {
    method: 'POST',
    headers: form,
    body: `grant_type=password&username=${phone}&password=long+enough+pw`,
  });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const info = await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken?access_token=${token}`);
  return { id: ((await info.json()) as { id: number }).id, auth: { authorization: `Bearer ${token}` } };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-viewer-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = { ...processes.db.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: base, LIVE_POLL_MS: '50' };
  const server = processes.started(runCli(['serve'], env));
  await waitForOk(`${base}/healthz`);

  const created = runCli(['client', 'create', '--name', 'viewer e2e'], env);
  await created.exited;
  const client = JSON.parse(created.output().trim()) as { client_id: string; client_secret: string };
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  const stamp = String(process.pid % 10000).padStart(4, '0');
  master = await account(basic, `1370000${stamp}`);
  sales = await account(basic, `1370001${stamp}`);
  appId = (await api<{ appId: string }>('POST', '/api/v1.7/apps', master, { name: 'Viewer' })).appId;
  await api('POST', `/api/v1.7/app/${appId}/members`, master, { svc_user_id: sales.id, role: 'Sales' });

  // The Sales member uploads the 3-page deck.
  const form = new FormData();
  form.append('file', new Blob([fixture('deck.pdf')], { type: 'application/pdf' }), 'Q3 review.pdf');
  const uploaded = await fetch(`${base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: sales.auth, body: form });
  fileId = ((await uploaded.json()) as { data: { id: string } }).data.id;
  await until(
    'the deck to be rendered',
    () => api<{ status: string }>('GET', `/api/v1.7/app/${appId}/file/${fileId}`, sales),
    (f) => f.status === 'ready',
  );
  expect(server.output()).not.toContain('"level":50');

  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const phone = (): Promise<BrowserContext> =>
  browser.newContext({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, userAgent: PHONE_UA });

interface ViewLog {
  id: string;
  viewerId: string;
  viewerName: string | null;
  leaveTime: string | null;
  totalPage: number;
  totalDuration: number;
  durations: { pageIndex: string; duration: string }[];
}

/** An open live stream of a member: the events received so far. */
async function liveStream(who: Account): Promise<{ events: { event: string; data: { body: Record<string, unknown> } }[]; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(`${base}/api/v1.7/app/${appId}/live`, {
    headers: { ...who.auth, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const events: { event: string; data: { body: Record<string, unknown> } }[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) as { body: Record<string, unknown> } });
        }
      }
    } catch {
      // closed
    }
  })();
  return { events, close: () => controller.abort() };
}

describe('a customer reads a deck on a phone', () => {
  it('records page 1 for ~3 s and page 2 for ~2 s, the behaviour records, the overview, and the owner hears the open live', async () => {
    const customer = await api<{ id: string }>('POST', `/api/v1.7/app/${appId}/member/${sales.id}/customers`, sales, {
      name: 'Ada Reader',
      phone: '13912345678',
    });
    const link = await api<{ id: string; url: string }>('POST', `/api/v1.7/app/${appId}/links?with_url=1`, sales, {
      name: 'Q3 review',
      file_id: fileId,
      customer_id: customer.id,
      tags: ['pricing'],
    });
    expect(link.url).toMatch(new RegExp(`^${base}/l/[A-Za-z0-9_-]{22}$`));
    const stream = await liveStream(sales);

    const context = await phone();
    const page = await context.newPage();
    // Reading starts when the page sends its open beacon: the times below are counted from then.
    const opening = page.waitForRequest((r) => r.url().endsWith('/events') && (r.postData() ?? '').includes('"type":"open"'));
    await page.goto(link.url);
    const open = await opening;
    // The test's own clock around each page: a loaded machine stretches the steps between the waits.
    const openedAt = Date.now();
    await page.waitForTimeout(3000);
    // The first page shows from the HTML alone.
    expect(
      await page.locator('#page-1 img').evaluate((img) => {
        const i = img as unknown as { complete: boolean; naturalWidth: number };
        return i.complete && i.naturalWidth > 0;
      }),
    ).toBe(true);
    expect((await (await open.response())?.json()) as unknown).toMatchObject({ status: 1, data: { counted: true } });
    const pressedAt = Date.now();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('#current').textContent()).toBe('2');
    const flippedAt = Date.now();
    expect(new URL(page.url()).searchParams.get('p')).toBe('2');
    await expect
      .poll(() =>
        page.locator('#page-2 img').evaluate((img) => {
          const i = img as unknown as { complete: boolean; naturalWidth: number };
          return i.complete && i.naturalWidth > 0;
        }),
      )
      .toBe(true);
    await page.waitForTimeout(2000);
    await page.close();
    const closedAt = Date.now();

    // The leave beacon closes the view: 2 pages, each read for about the time it was shown.
    const [log] = await until(
      'the view to be closed',
      () => api<ViewLog[]>('GET', `/api/v1.7/link/${link.id}/view-logs`, sales),
      (logs) => logs[0]?.leaveTime !== null && logs[0]?.leaveTime !== undefined,
    );
    expect(log).toMatchObject({ viewerId: customer.id, viewerName: 'Ada Reader', totalPage: 2 });
    const ms = new Map(log?.durations.map((d) => [d.pageIndex, Number(d.duration)]));
    expect([...ms.keys()]).toEqual(['1', '2']);
    expect(ms.get('1')).toBeGreaterThanOrEqual(2000);
    expect(ms.get('1')).toBeLessThanOrEqual(flippedAt - openedAt + 1000);
    expect(ms.get('2')).toBeGreaterThanOrEqual(1000);
    expect(ms.get('2')).toBeLessThanOrEqual(closedAt - pressedAt + 1000);

    const records = await api<{ action: string; content: string }[]>(
      'GET',
      `/api/v1.7/app/${appId}/member/customer/${customer.id}/behaviour`,
      sales,
    );
    expect(records.map((r) => r.action).sort()).toEqual([
      'create',
      'file_view_duration',
      'file_view_duration',
      'link_leave_log',
      'link_view_log',
    ]);
    const overview = await api<{ linkCount: number; customerTag: { tag: string; num: number }[] }>(
      'GET',
      `/api/v1.7/customer/${customer.id}/overview`,
      sales,
    );
    expect(overview.linkCount).toBe(1);
    expect(overview.customerTag).toMatchObject([{ tag: 'pricing', num: 1 }]);
    const links = await api<{ id: string; linkViewLogCount: number; viewerCount: number }[]>('GET', `/api/v1.7/app/${appId}/links`, sales);
    expect(links.find((l) => l.id === link.id)).toMatchObject({ linkViewLogCount: 1, viewerCount: 1 });

    // The Sales member's own live stream carried the open.
    await until(
      'the open on the live stream',
      async () => stream.events.map((e) => `${e.event}:${String(e.data.body.action)}`),
      (seen) => seen.includes('BehaviourLog.create:link_view_log'),
    );
    stream.close();
    await context.close();
  });
});

describe('a reader leaves their details', () => {
  it('fills the form: a customer (createWay 5, the link creator its owner) with the earlier view joined', async () => {
    const link = await api<{ id: string; url: string }>('POST', `/api/v1.7/app/${appId}/links?with_url=1`, sales, {
      name: 'Open deck',
      file_id: fileId,
      form_position: 2,
    });
    const context = await phone();
    const page = await context.newPage();
    const opened = page.waitForResponse((r) => r.url().endsWith('/events'));
    await page.goto(link.url);
    await opened;
    await page.waitForTimeout(1000);
    await page.locator('#form').scrollIntoViewIfNeeded();
    await page.locator('input[name="name"]').fill('Grace Hopper');
    await page.locator('input[name="email"]').fill('grace@example.com');
    await page.locator('input[name="phone"]').fill('13800001111');
    await page.locator('input[name="company"]').fill('Navy');
    await page.locator('#form button[type="submit"]').click();
    await expect.poll(() => page.locator('#form-sent').isVisible()).toBe(true);
    // No cookie of the viewer's is readable by script.
    expect(await page.evaluate('document.cookie')).toBe('');
    await page.close();
    await context.close();

    const found = await api<{ id: string; name: string; createWay: number; svcUserId: string }[]>(
      'GET',
      `/api/v1.7/app/${appId}/customer/appSearch?condition=13800001111`,
      master,
    );
    expect(found).toHaveLength(1);
    const grace = found[0] as (typeof found)[number];
    expect(grace).toMatchObject({ name: 'Grace Hopper', createWay: 5, svcUserId: String(sales.id) });
    const records = await api<{ action: string }[]>('GET', `/api/v1.7/app/${appId}/member/customer/${grace.id}/behaviour`, sales);
    const actions = records.map((r) => r.action);
    expect(actions).toContain('link_view_log');
    expect(actions).toContain('link_view_clue');
    const logs = await api<ViewLog[]>('GET', `/api/v1.7/link/${link.id}/view-logs`, sales);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ viewerId: grace.id, viewerName: 'Grace Hopper' });
  });
});

describe('screens', () => {
  it('shows the deck at 375 px and 1440 px with no horizontal scroll, the first page at full width', async () => {
    const link = await api<{ url: string }>('POST', `/api/v1.7/app/${appId}/links?with_url=1`, sales, {
      name: 'Q3 review',
      file_id: fileId,
      form_position: 3,
    });
    for (const width of [375, 1440]) {
      const context = await browser.newContext({
        viewport: { width, height: width === 375 ? 812 : 900 },
        userAgent: width === 375 ? PHONE_UA : DESKTOP_UA,
      });
      const page = await context.newPage();
      // Not one failed request or console error (the icon included) while the deck opens.
      const noise = watchNoise(page);
      await page.goto(link.url);
      await expect
        .poll(() =>
          page.locator('#page-1 img').evaluate((img) => {
            const i = img as unknown as { complete: boolean; naturalWidth: number };
            return i.complete && i.naturalWidth > 0;
          }),
        )
        .toBe(true);
      // Run in the page (the server's TypeScript has no DOM types).
      const layout = (await page.evaluate(`({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        image: document.querySelector('#page-1 img').getBoundingClientRect().width,
        bar: document.querySelector('.bar').getBoundingClientRect().height,
      })`)) as { scrollWidth: number; innerWidth: number; image: number; bar: number };
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
      expect(layout.image).toBe(Math.min(width, 960));
      expect(layout.bar).toBeGreaterThanOrEqual(48);
      noise.stop();
      expect(noise.failures).toEqual([]);
      if (process.env.VIEWER_SCREENSHOTS)
        await page.screenshot({ path: path.join(process.env.VIEWER_SCREENSHOTS, `viewer-${width}.png`), fullPage: width === 375 });
      await context.close();
    }
  });
});
