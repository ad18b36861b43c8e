// lanes: sqlite
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { DESKTOP_UA, launchChromium } from '../helpers/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProvisionedProject, freePort, provisionProject, runCli, until, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * The site snippet in a real browser (Debian's chromium, driven by playwright-core) against the real
 * server process: a site on a second local origin includes the snippet; a visitor browses three
 * pages, submits a form and is identified; the customer's timeline, overview counters and
 * webAccessData show it. A page from an origin not on the project's list is refused.
 */
/** A desktop Chrome: headless Chromium's own User-Agent names it HeadlessChrome, which is a bot. */

const processes = useProcessDatabase();
let dataDir = '';
let base = '';
let siteBase = '';
let site: http.Server;
let browser: Browser;
let p: ProvisionedProject;
let siteKey = '';

/** The test site: three pages with the snippet; the third has a contact form that identifies. */
function page(n: number, title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>
<script>window.rapport=window.rapport||function(){(rapport.q=rapport.q||[]).push(arguments)};</script>
<script async src="${base}/t.js" data-key="${siteKey}"></script></head>
<body><h1>${title}</h1>${body}</body></html>`;
}

const PAGES: Record<string, () => string> = {
  '/': () => page(1, 'Welcome', '<a id="next" href="/pricing?ref=ad&utm_campaign=spring">Pricing</a>'),
  '/pricing': () => page(2, 'Pricing', '<a id="next" href="/contact">Contact us</a>'),
  '/contact': () =>
    page(
      3,
      'Contact',
      `<form id="contact-form"><input id="email" name="email"><button id="send">Send</button></form>
<p id="sent" hidden>Thanks</p>
<script>document.getElementById('contact-form').addEventListener('submit', function (e) {
  e.preventDefault();
  rapport('identify', { email: document.getElementById('email').value });
  document.getElementById('sent').hidden = false;
});</script>`,
    ),
};

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

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-site-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = { ...processes.db.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: base };
  const server = processes.started(runCli(['serve'], env));
  await waitForOk(`${base}/healthz`);
  p = await provisionProject(base, env, `1360000${String(process.pid % 10000).padStart(4, '0')}`);

  site = http.createServer((req, res) => {
    const render = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
    if (!render) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(render());
  });
  const sitePort = await freePort();
  await new Promise<void>((resolve) => site.listen(sitePort, '127.0.0.1', resolve));
  siteBase = `http://127.0.0.1:${sitePort}`;

  // The site's origin is allowed; `localhost` on the same port is another origin, and is not.
  await api('POST', `/api/v1.7/app/${p.appId}`, { site_origins: siteBase });
  siteKey = (await api<{ siteKey: string }>('GET', `/api/v1.7/app/${p.appId}/site`)).siteKey;
  const created = await p.ingest([
    {
      event_type: 'create',
      domainType: 'Customer',
      domainId: 'site-e2e-ada',
      body: { name: 'Ada Visitor', email: 'ada.visitor@example.com' },
    },
    {
      event_type: 'create',
      domainType: 'Customer',
      domainId: 'site-e2e-bob',
      body: { name: 'Bob Visitor', email: 'bob.visitor@example.com' },
    },
  ]);
  expect(((await created.json()) as { status: number }).status).toBe(1);
  expect(server.output()).not.toContain('"level":50');

  // Beacons sent as a page unloads go out with the browser's own User-Agent, not the context's.
  browser = await launchChromium({ userAgent: DESKTOP_UA });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Behaviour {
  action: string;
  when: string;
  content: string;
  webAccessLog?: Record<string, unknown> | null;
  webPageViewLogs?: { title: string }[];
}

describe('a visitor on a site with the snippet', () => {
  it('browses three pages, submits the form, is identified: the timeline, counters and webAccessData show it', async () => {
    const context = await browser.newContext({ userAgent: DESKTOP_UA });
    const tab = await context.newPage();
    await tab.goto(`${siteBase}/?utm_source=mail&email=private@example.com`);
    await tab.waitForFunction(() => (globalThis as unknown as { rapport?: { loaded?: boolean } }).rapport?.loaded === true);
    await tab.click('#next');
    await tab.waitForURL(/\/pricing/);
    await tab.waitForFunction(() => (globalThis as unknown as { rapport?: { loaded?: boolean } }).rapport?.loaded === true);
    await tab.click('#next');
    await tab.waitForURL(/\/contact/);
    await tab.waitForFunction(() => (globalThis as unknown as { rapport?: { loaded?: boolean } }).rapport?.loaded === true);
    await tab.fill('#email', 'ada.visitor@example.com');
    const identified = tab.waitForResponse((r) => r.url().includes('/t/collect') && (r.request().postData() ?? '').includes('identify'));
    await tab.click('#send');
    expect((await identified).status()).toBe(200);
    // Leaving the site sends what is left (the last page's leave) with sendBeacon.
    await tab.goto('about:blank');
    await context.close();

    const behaviour = await until(
      'the visit in the customer timeline',
      () => api<Behaviour[]>('GET', `/api/v1.7/app/${p.appId}/member/customer/site-e2e-ada/behaviour?count=100`),
      (list) => list.filter((r) => r.action === 'web_page_leave').length >= 3,
    );
    const actions = behaviour.map((r) => r.action).filter((a) => a !== 'create');
    expect(actions.filter((a) => a === 'access_site')).toHaveLength(1);
    expect(actions.filter((a) => a === 'web_page_view')).toHaveLength(3);
    expect(actions.filter((a) => a === 'submit_form')).toHaveLength(1);
    const visit = behaviour.find((r) => r.action === 'access_site') as Behaviour;
    const content = JSON.parse(visit.content) as Record<string, unknown>;
    // Stored without the query string but its utm_* parameters.
    expect(content).toMatchObject({ title: 'Welcome', url: `${siteBase}/?utm_source=mail`, site: siteBase.replace('http://', '') });
    expect(JSON.stringify(behaviour)).not.toContain('private@example.com');
    expect(visit.webPageViewLogs?.map((v) => v.title).sort()).toEqual(['Contact', 'Pricing', 'Welcome']);
    const form = behaviour.find((r) => r.action === 'submit_form') as Behaviour;
    expect(JSON.parse(form.content)).toMatchObject({ target: 'contact-form', title: 'Contact' });
    expect(form.content).not.toContain('ada.visitor@example.com');
    const pricing = behaviour.find((r) => r.action === 'web_page_view' && JSON.parse(r.content).title === 'Pricing') as Behaviour;
    expect(JSON.parse(pricing.content).url).toBe(`${siteBase}/pricing?utm_campaign=spring`);

    const overview = await api<Record<string, unknown>>('GET', `/api/v1.7/customer/site-e2e-ada/overview`);
    expect(overview).toMatchObject({ accessSiteCount: 1, submitFormCount: 1, downloadFileCount: 0 });
    expect(overview.webAccessData).toEqual([{ site: 'Welcome', num: 1 }]);
  });

  it('a call the server refuses for load goes again after Retry-After, and arrives once', async () => {
    const context = await browser.newContext({ userAgent: DESKTOP_UA });
    const tab = await context.newPage();
    // The server's answer to a full write queue, given to the first call: nothing of it is written.
    const sent: string[] = [];
    await tab.route(`${base}/t/collect**`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      sent.push(route.request().postData() ?? '');
      if (sent.length > 1) return route.continue();
      return route.fulfill({
        status: 503,
        headers: {
          'access-control-allow-origin': siteBase,
          'access-control-expose-headers': 'Retry-After',
          'retry-after': '1',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ status: 0, code: 'overloaded', msg: 'The server is busy' }),
      });
    });
    await tab.goto(`${siteBase}/contact`);
    await tab.waitForFunction(() => (globalThis as unknown as { rapport?: { loaded?: boolean } }).rapport?.loaded === true);
    await tab.fill('#email', 'bob.visitor@example.com');
    const accepted = tab.waitForResponse((r) => r.url().includes('/t/collect') && r.status() === 200, { timeout: 15_000 });
    await tab.click('#send');
    await accepted;
    // The refused call went again as it was.
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent[1]).toBe(sent[0]);
    expect(sent[0]).toContain('identify');
    await context.close();
    const behaviour = await until(
      'the identified visit in the customer timeline',
      () => api<Behaviour[]>('GET', `/api/v1.7/app/${p.appId}/member/customer/site-e2e-bob/behaviour?count=100`),
      (list) => list.some((r) => r.action === 'access_site'),
    );
    expect(behaviour.filter((r) => r.action === 'access_site')).toHaveLength(1);
    expect(behaviour.filter((r) => r.action === 'web_page_view')).toHaveLength(1);
  });

  it('a page on an origin not on the list is refused', async () => {
    const before = await api<Behaviour[]>('GET', `/api/v1.7/app/${p.appId}/member/customer/site-e2e-ada/behaviour?count=100`);
    const context = await browser.newContext({ userAgent: DESKTOP_UA });
    const tab = await context.newPage();
    // `localhost` is another origin than the allowed `127.0.0.1` of the same site.
    const other = siteBase.replace('127.0.0.1', 'localhost');
    await tab.goto(`${other}/contact`);
    await tab.waitForFunction(() => (globalThis as unknown as { rapport?: { loaded?: boolean } }).rapport?.loaded === true);
    await tab.fill('#email', 'ada.visitor@example.com');
    // The answer carries no Access-Control-Allow-Origin: the browser fails the call for the page.
    const failed = tab.waitForEvent('requestfailed', (r) => r.url().includes('/t/collect'));
    await tab.click('#send');
    const request = await failed;
    expect(request.headers().origin ?? other).toBe(other);
    await context.close();
    // The same call again, as the browser sent it: refused with 403 origin_not_allowed.
    const again = await fetch(request.url(), {
      method: 'POST',
      headers: { origin: other, 'content-type': 'text/plain', 'user-agent': DESKTOP_UA },
      body: request.postData() ?? '',
    });
    expect(again.status).toBe(403);
    expect(await again.json()).toMatchObject({ status: 0, code: 'origin_not_allowed' });
    // Nothing of that visit reached the customer.
    const after = await api<Behaviour[]>('GET', `/api/v1.7/app/${p.appId}/member/customer/site-e2e-ada/behaviour?count=100`);
    expect(after.length).toBe(before.length);
  });
});
