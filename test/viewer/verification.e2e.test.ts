// lanes: sqlite
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE_UA, launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { until, useProcessDatabase } from '../helpers/process.ts';
import { type Account, type ViewerTeam, startViewerTeam } from '../helpers/viewer-team.ts';

/**
 * A verified reader in a real browser (Debian's chromium) against the real server process: on a
 * phone, the reader gives their address, reads the code the server mailed (a real SMTP server here),
 * enters it, accepts the link's agreement and sees the first page; the owner sees the view as their
 * customer's and the acceptance. Screenshots of the code and agreement pages at 375 and 1440 px.
 */

const mailbox = await startMailbox();
const processes = useProcessDatabase();
let team: ViewerTeam;
let browser: Browser;
let sales: Account;
let appId = '';
let fileId = '';

const api = <T>(method: string, url: string, who: Account, body?: unknown): Promise<T> => team.api<T>(method, url, who, body);

beforeAll(async () => {
  team = await startViewerTeam(processes, {
    label: 'verify',
    phoneStem: '137100',
    project: 'Northwind Sales',
    env: () => ({ SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, SMTP_FROM: 'Rapport <links@example.com>' }),
  });
  ({ sales, appId, fileId } = team);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await mailbox.close();
  team?.cleanUp();
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
