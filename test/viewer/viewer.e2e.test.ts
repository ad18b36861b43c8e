// lanes: sqlite
import path from 'node:path';
import { type Browser, type BrowserContext } from 'playwright-core';
import { DESKTOP_UA, PHONE_UA, launchChromium, watchNoise } from '../helpers/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until, useProcessDatabase } from '../helpers/process.ts';
import { type Account, type ViewerTeam, startViewerTeam } from '../helpers/viewer-team.ts';

/**
 * The share-link viewer in a real browser (Debian's chromium, driven by playwright-core) against the
 * real server process: a customer reads a deck on a phone-sized screen, page by page, and the owner
 * sees the view log with each page's time, the behaviour records, the overview, and the open on their
 * live stream; a reader fills the form and becomes a customer with their earlier view joined.
 */

const processes = useProcessDatabase();
let team: ViewerTeam;
let base = '';
let browser: Browser;
let master: Account;
let sales: Account;
let appId = '';
let fileId = '';

const api = <T>(method: string, url: string, who: Account, body?: unknown): Promise<T> => team.api<T>(method, url, who, body);

beforeAll(async () => {
  team = await startViewerTeam(processes, { label: 'viewer', phoneStem: '137000', project: 'Viewer', env: () => ({ LIVE_POLL_MS: '50' }) });
  ({ base, master, sales, appId, fileId } = team);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  team?.cleanUp();
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
