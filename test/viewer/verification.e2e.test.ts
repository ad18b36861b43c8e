// lanes: sqlite
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE_UA, launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { fixture } from '../helpers/files.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { freePort, runCli, until, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * A verified reader in a real browser (Debian's chromium) against the real server process: on a
 * phone, the reader gives their address, reads the code the server mailed (a real SMTP server here),
 * enters it, accepts the link's agreement and sees the first page; the owner sees the view as their
 * customer's and the acceptance. Screenshots of the code and agreement pages at 375 and 1440 px.
 */

const mailbox = await startMailbox();
const processes = useProcessDatabase();
let dataDir = '';
let base = '';
let browser: Browser;

interface Account {
  id: number;
  auth: { authorization: string };
}
let sales: Account;
let appId = '';
let fileId = '';

async function api<T>(method: string, url: string, who: Account, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...who.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
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
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-verify-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = {
    ...processes.db.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: base,
    SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
    SMTP_FROM: 'Rapport <links@example.com>',
  };
  const server = processes.started(runCli(['serve'], env));
  await waitForOk(`${base}/healthz`);
  const created = runCli(['client', 'create', '--name', 'verify e2e'], env);
  await created.exited;
  const client = JSON.parse(created.output().trim()) as { client_id: string; client_secret: string };
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  const stamp = String(process.pid % 10000).padStart(4, '0');
  const master = await account(basic, `1371000${stamp}`);
  sales = await account(basic, `1371001${stamp}`);
  appId = (await api<{ appId: string }>('POST', '/api/v1.7/apps', master, { name: 'Northwind Sales' })).appId;
  await api('POST', `/api/v1.7/app/${appId}/members`, master, { svc_user_id: sales.id, role: 'Sales' });
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
  await mailbox.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const AGREEMENT = [
  'Mutual non-disclosure agreement',
  '',
  '1. What you read here is confidential: the figures, the plans and the names of customers.',
  '2. You keep it to yourself and to the people at your company who need it to evaluate the offer.',
  '3. This agreement lasts two years from today.',
].join('\n');

/** Asks for the code at the gate and answers the code mailed to `email`. */
async function askCode(page: Page, email: string): Promise<string> {
  const before = mailbox.inbox.length;
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="name"]').fill('Ada Lovelace');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  const inbox = await mailbox.waitFor(before + 1);
  const mail = inbox.at(-1);
  expect(mail?.to).toEqual([email]);
  return /\b(\d{6})\b/.exec(mail?.mail.text ?? '')?.[1] as string;
}

describe('a reader proves their address and accepts the agreement', () => {
  it('on a phone: the address, the code from the mail, the agreement, then page 1; the owner sees who', async () => {
    const customer = await api<{ id: string }>('POST', `/api/v1.7/app/${appId}/member/${sales.id}/customers`, sales, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    const link = await api<{ id: string; url: string }>('POST', `/api/v1.7/app/${appId}/links?with_url=1`, sales, {
      name: 'Q3 review under NDA',
      title: 'Q3 review',
      file_id: fileId,
      email_verify: 1,
      agreement: AGREEMENT,
    });
    const context: BrowserContext = await browser.newContext({
      viewport: { width: 375, height: 812 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      userAgent: PHONE_UA,
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const noise = watchNoise(page);
    await page.goto(link.url);
    await shot(page, 'viewer-email-gate-375');
    const code = await askCode(page, 'ada@example.com');
    await expect.poll(() => page.locator('body').textContent()).toContain('ada@example.com');
    await shot(page, 'viewer-code-375');
    await page.locator('input[name="code"]').fill(code);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('button', { name: 'I agree' }).waitFor();
    expect(await page.locator('#agreement').textContent()).toBe(AGREEMENT);
    expect(await page.locator('input[name="name"]').inputValue()).toBe('Ada Lovelace');
    await shot(page, 'viewer-agreement-375');
    await page.getByLabel('I have read and agree to this agreement').check();
    const opening = page.waitForRequest((r) => r.url().endsWith('/events') && (r.postData() ?? '').includes('"type":"open"'));
    await page.getByRole('button', { name: 'I agree' }).click();
    await opening;
    await expect
      .poll(() =>
        page.locator('#page-1 img').evaluate((img) => {
          const i = img as unknown as { complete: boolean; naturalWidth: number };
          return i.complete && i.naturalWidth > 0;
        }),
      )
      .toBe(true);
    expect(await page.title()).toBe('Q3 review');
    // Every page of the way answered within the page's own CSP, no script error, no failed request.
    expect(errors).toEqual([]);
    expect(noise.failures).toEqual([]);
    await page.close();
    await context.close();

    // The owner: the view is Ada's (the verified tie), the acceptance names her.
    await until(
      'the view to be the customer’s',
      () => api<{ viewerId: string; viewerName: string | null }[]>('GET', `/api/v1.7/link/${link.id}/view-logs`, sales),
      (logs) => logs[0]?.viewerId === customer.id,
    );
    const [accepted] = await api<{ email: string; name: string; version: number; viewId: string | null }[]>(
      'GET',
      `/api/v1.7/app/${appId}/link/${link.id}/agreements`,
      sales,
    );
    expect(accepted).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace', version: 1 });
  });

  it('at 1440 px: the code and agreement pages read as a person expects, and pass axe', async () => {
    const link = await api<{ url: string }>('POST', `/api/v1.7/app/${appId}/links?with_url=1`, sales, {
      name: 'Q3 review for partners',
      title: 'Q3 review',
      file_id: fileId,
      email_verify: 1,
      agreement: AGREEMENT,
    });
    const pageErrors: string[] = [];
    const context = await personContext(browser, { width: 1440, touch: false, pageErrors });
    const page = await context.newPage();
    await page.goto(link.url);
    await expectAccessible(page, 'the e-mail gate');
    await shot(page, 'viewer-email-gate-1440');
    const code = await askCode(page, 'grace@example.com');
    // A wrong code first: the page says so, and the reader tries again.
    await page.locator('input[name="code"]').fill(code === '123456' ? '654321' : '123456');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByText('That code is not right').waitFor();
    await expectAccessible(page, 'the code page');
    await shot(page, 'viewer-code-1440');
    await page.locator('input[name="code"]').fill(code);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('button', { name: 'I agree' }).waitFor();
    await expectAccessible(page, 'the agreement page');
    await shot(page, 'viewer-agreement-1440');
    await page.getByLabel('I have read and agree to this agreement').check();
    await page.getByRole('button', { name: 'I agree' }).click();
    await page.locator('#page-1 img').waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
