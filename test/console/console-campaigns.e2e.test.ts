// lanes: sqlite
import fs from 'node:fs';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { AppShell } from '../../console/e2e/pages/AppShell.ts';
import { ComposerPage } from '../../console/e2e/pages/ComposerPage.ts';
import { ProjectsPage } from '../../console/e2e/pages/ProjectsPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { DESKTOP_UA, launchChromium, personContext } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { runCli, serveOnFreePort, useProcessDatabase } from '../helpers/process.ts';

/**
 * The campaign composer in a real browser against a real server process whose mail goes to an SMTP
 * server in this process: a salesperson writes a campaign with a merge field, sees the server's
 * preview (sandboxed, the customer's name escaped), is told about an unknown merge field on the body,
 * mails a test to themself (it arrives), sends the campaign to two of their own customers after a
 * confirmation with the count, and watches it finish; at 375 px on a touch screen, a scheduled one is
 * paused, resumed and cancelled; the composer in Chinese. axe on each state; screenshots go to
 * CONSOLE_SHOTS_DIR (default /tmp/console-shots).
 */
const PASSWORD = 'a long enough password';
const SALES_EMAIL = 'sam@campaigns.example';

const processes = useProcessDatabase();
const box = await startMailbox();
let base = '';
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
let appId = '';
const pageErrors: string[] = [];

/** An OAuth client made with the CLI, as an integration would have. */
let basic = '';
async function oauthClient(): Promise<string> {
  if (basic === '') {
    const made = runCli(['client', 'create', '--name', 'e2e'], processes.db.env);
    await made.exited;
    const c = JSON.parse(made.output().trim()) as { client_id: string; client_secret: string };
    basic = `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`;
  }
  return basic;
}

async function token(username: string): Promise<string> {
  const res = await fetch(`${base}/svcuser/oauth2/access_token`, {
    method: 'POST',
    headers: { authorization: await oauthClient(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password: PASSWORD }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function register(email: string, nickname: string): Promise<{ id: number; token: string }> {
  await fetch(`${base}/svcuser/oauth2/register`, {
    method: 'POST',
    headers: { authorization: await oauthClient(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: PASSWORD, nickname }),
  });
  const t = await token(email);
  const info = await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken`, { headers: { authorization: `Bearer ${t}` } });
  return { id: ((await info.json()) as { id: number }).id, token: t };
}

async function call(
  t: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; data: { id: string; appId: string } }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${t}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as { status: number; data: { id: string; appId: string } };
  expect(json, url).toMatchObject({ status: 1 });
  return json;
}

const contextFor = (width: number, touch: boolean): Promise<BrowserContext> =>
  personContext(browser, { width, touch, timezoneId: 'Asia/Shanghai', pageErrors });

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  base = await serveOnFreePort(processes, (own) => ({
    PUBLIC_BASE_URL: own,
    SMTP_URL: `smtp://127.0.0.1:${box.port}`,
    SMTP_FROM: 'Campaigns <mail@campaigns.example>',
    TIME_ZONE: 'UTC',
  }));

  // The project, its Sales member and their customers, made through the API (the console's own pages for
  // these have their tests).
  const owner = await register('owner@campaigns.example', 'Olivia Owner');
  appId = (await call(owner.token, 'POST', '/api/v1.7/apps', { name: 'Campaign Co' })).data.appId;
  const sales = await register(SALES_EMAIL, 'Sam Sales');
  await call(owner.token, 'POST', `/api/v1.7/app/${appId}/members`, { svc_user_id: sales.id, role: 'Sales' });
  await call(sales.token, 'POST', `/api/v1.7/user/membership/${appId}/accept`);
  for (const [name, email] of [
    ['Ada <b>Lovelace</b>', 'ada@customers.example'],
    ['Grace Hopper', 'grace@customers.example'],
  ]) {
    await call(sales.token, 'POST', `/api/v1.7/app/${appId}/member/${sales.id}/customers`, { name, email });
  }
  // A group of the Sales member's with one customer in it.
  const group = await call(sales.token, 'POST', `/api/v1.7/app/${appId}/customer-groups`, { name: 'Spring list' });
  await call(sales.token, 'POST', `/api/v1.7/app/${appId}/member/${sales.id}/customers`, {
    name: 'Linus Torvalds',
    email: 'linus@customers.example',
    groupId: group.data.id,
  });
  // Someone else's customer: a Sales member does not find it.
  await call(owner.token, 'POST', `/api/v1.7/app/${appId}/member/${owner.id}/customers`, {
    name: 'Olga Owned',
    email: 'olga@customers.example',
  });

  browser = await launchChromium();
  desktop = await contextFor(1440, false);
  mobile = await contextFor(375, true);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await box.close();
});

/** The mass e-mail list in a new page of the context, signed in first unless its session goes on. */
async function signedIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  if ((await context.cookies()).length === 0) {
    const signIn = new SignInPage(page);
    await signIn.open(base);
    await signIn.signIn(SALES_EMAIL, PASSWORD);
    // Signed in once the projects page shows (the session cookie is set by then).
    await new ProjectsPage(page).heading.waitFor();
  }
  await page.goto(`${base}/console/p/${appId}/posts`);
  await page.getByRole('heading', { level: 1, name: text('en-US', 'histories.posts.title') }).waitFor();
  return page;
}

describe('the campaign composer', { timeout: 120_000 }, () => {
  it('a salesperson composes, previews, tests and sends a campaign, then sees it finish (1440 px)', async () => {
    const page = await signedIn(desktop);
    const composer = new ComposerPage(page);
    await composer.openFromList();
    await page.getByText(text('en-US', 'campaigns.compose.previewEmpty')).waitFor();
    await expectAccessible(page, 'composer (empty)');

    await composer.subject.fill('Spring news');
    await composer.body.fill('<p>Dear ');
    await composer.insertField('name');
    await composer.body.press('End');
    await composer.body.pressSequentially(', see <a href="https://example.com/spring">our offer</a>.</p>');
    await composer.pickCustomer('Ada', 'Ada <b>Lovelace</b>');
    // Olga is the owner's: the search does not offer her.
    const input = page.getByLabel(text('en-US', 'campaigns.compose.customers'), { exact: true });
    await input.fill('Olga');
    await page.waitForTimeout(800);
    expect(await page.locator('.ant-select-item-option').filter({ hasText: 'Olga' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await composer.pickCustomer('Grace', 'Grace Hopper');
    await composer.recipientCount.filter({ hasText: text('en-US', 'campaigns.compose.recipientCount', { count: 2 }) }).waitFor();

    // The preview: the server's rendering for sample values, in a frame that runs nothing.
    expect(await composer.previewFrame.getAttribute('sandbox')).toBe('');
    await composer.preview.getByText('Dear Ada Lovelace, see').waitFor();
    // As Ada: her name's markup is text, not markup.
    // By keyboard: the select opens with the arrow key and takes the option with Enter.
    await page.getByLabel(text('en-US', 'campaigns.compose.previewAs')).focus();
    // The option under the arrow, in the open list only (the recipients' closed list keeps its own).
    const active = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option-active');
    await page.keyboard.press('ArrowDown');
    await active.filter({ hasText: 'Sample' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await active.filter({ hasText: 'Ada' }).waitFor();
    await page.keyboard.press('Enter');
    await composer.preview.getByText('Dear Ada <b>Lovelace</b>, see').waitFor();
    expect(await composer.preview.locator('b').count()).toBe(0);
    expect(await composer.preview.getByRole('link', { name: 'our offer' }).getAttribute('href')).toBe('https://example.com/spring');
    await expectAccessible(page, 'composer with preview');
    await shot(page, 'composer-1440');

    // An unknown merge field: the server's refusal on the body, gone when it is fixed.
    await composer.body.press('End');
    await composer.body.pressSequentially('{{password}}');
    await composer.fieldError(text('en-US', 'campaigns.compose.body')).filter({ hasText: 'password' }).waitFor();
    for (let i = 0; i < '{{password}}'.length; i++) await composer.body.press('Backspace');
    await composer.fieldError(text('en-US', 'campaigns.compose.body')).waitFor({ state: 'detached' });

    // A test mail to the salesperson's own address.
    await composer.sendTest();
    await page.getByText(text('en-US', 'campaigns.compose.testSent', { to: SALES_EMAIL })).waitFor();
    const [test] = await box.waitFor(1);
    expect(test!.to).toEqual([SALES_EMAIL]);
    expect(test!.mail.subject).toBe('[Test] Spring news');
    expect(test!.mail.html).toContain('Dear Ada &#60;b&#62;Lovelace&#60;/b&#62;, see');

    // Send, after a confirmation that says to how many.
    const said = await composer.send();
    expect(said).toContain(text('en-US', 'campaigns.compose.confirmBody', { count: 2, subject: 'Spring news' }));
    await page.getByRole('heading', { level: 1, name: 'Spring news' }).waitFor();
    expect(page.url()).toMatch(new RegExp(`/console/p/${appId}/posts/[0-9a-f-]{36}$`));
    await page.locator('[data-status="done"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('[data-state="sent"]').innerText()).toBe('2');
    const mails = box.inbox.filter((m) => m.mail.headers.get('x-rapport-post'));
    expect(mails.map((m) => m.to[0]).sort()).toEqual(['ada@customers.example', 'grace@customers.example']);
    await expectAccessible(page, 'campaign progress');
    await shot(page, 'campaign-1440');

    // The list shows it, and leads back to its progress.
    await new AppShell(page, 'en-US').goTo('posts');
    await page.getByRole('link', { name: 'Spring news' }).waitFor();
    await page.close();
  });

  it('at 375 px: a campaign for later is paused, resumed and cancelled; the composer in Chinese', async () => {
    const page = await signedIn(mobile);
    const composer = new ComposerPage(page);
    await composer.startDraft('Autumn news', '<p>Hello {{name}}</p>');
    await composer.pickCustomer('Grace', 'Grace Hopper');
    // The count is asked of the server once the pick settles: on a busy machine that can take a while.
    await composer.recipientCount
      .filter({ hasText: text('en-US', 'campaigns.compose.recipientCount', { count: 1 }) })
      .waitFor({ timeout: 60_000 });
    await composer.preview.getByText('Hello Ada Lovelace').waitFor();
    await page.getByText(text('en-US', 'campaigns.compose.later'), { exact: true }).click();
    const when = page.getByLabel(text('en-US', 'campaigns.compose.sendAt'), { exact: true });
    await when.click();
    await when.fill('2099-01-01 09:00');
    await page.locator('.ant-picker-ok button').click();
    await expectAccessible(page, 'composer (375)');
    await shot(page, 'composer-375');
    const said = await composer.send();
    expect(said).toContain(text('en-US', 'campaigns.compose.confirmLater', { time: '2099-01-01 09:00' }));
    await page.getByRole('heading', { level: 1, name: 'Autumn news' }).waitFor();
    await page.locator('[data-status="active"]').waitFor();
    // 09:00 in Shanghai is 01:00 in the server's zone (UTC).
    await page.locator('time').filter({ hasText: '2099-01-01 09:00' }).waitFor();

    await page.getByRole('button', { name: text('en-US', 'campaigns.progress.pause') }).click();
    await page.locator('[data-status="paused"]').waitFor();
    await page.getByRole('button', { name: text('en-US', 'campaigns.progress.resume') }).click();
    await page.locator('[data-status="active"]').waitFor();
    await page.getByRole('button', { name: text('en-US', 'campaigns.progress.cancel') }).click();
    await page
      .locator('.ant-popconfirm')
      .getByRole('button', { name: text('en-US', 'campaigns.progress.cancel') })
      .click();
    await page.locator('[data-status="cancelled"]').waitFor();
    await expect.poll(() => page.locator('[data-state="cancelled"]').innerText()).toBe('1');
    await expectAccessible(page, 'campaign progress (375)');
    await shot(page, 'campaign-375');

    // In Chinese.
    await new AppShell(page, 'en-US').switchLanguage('zh-CN');
    await page.goto(`${base}/console/p/${appId}/posts/new`);
    const zh = new ComposerPage(page, 'zh-CN');
    await zh.heading.waitFor();
    await zh.subject.fill('秋季新闻');
    await zh.body.fill('<p>{{name}}</p>');
    await zh.preview.getByText('Ada Lovelace').waitFor();
    await expectAccessible(page, 'composer in Chinese (375)');
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('a campaign to a customer group goes to the group’s customers (1440 px)', async () => {
    const page = await signedIn(desktop);
    const composer = new ComposerPage(page);
    await composer.startDraft('Group news', '<p>Hi {{name}}</p>');
    await page.getByText(text('en-US', 'campaigns.compose.byGroup'), { exact: true }).click();
    // Sending without a group names the missing field.
    await page.getByRole('button', { name: text('en-US', 'campaigns.compose.send') }).click();
    await composer
      .fieldError(text('en-US', 'campaigns.compose.group'))
      .filter({ hasText: text('en-US', 'campaigns.compose.groupRequired') })
      .waitFor();
    await page.getByLabel(text('en-US', 'campaigns.compose.group'), { exact: true }).click();
    await page.locator('.ant-select-item-option').filter({ hasText: 'Spring list' }).click();
    await composer.recipientCount.filter({ hasText: text('en-US', 'campaigns.compose.recipientCount', { count: 1 }) }).waitFor();
    // No one to preview as in a group: the sample values fill it.
    await composer.preview.getByText('Hi Ada Lovelace').waitFor();
    const said = await composer.send();
    expect(said).toContain(text('en-US', 'campaigns.compose.confirmBody', { count: 1, subject: 'Group news' }));
    await page.getByRole('heading', { level: 1, name: 'Group news' }).waitFor();
    await page.locator('[data-status="done"]').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => box.inbox.filter((m) => m.mail.subject === 'Group news').map((m) => m.to[0]))
      .toEqual(['linus@customers.example']);
    expect(box.inbox.find((m) => m.mail.subject === 'Group news')!.mail.html).toContain('Hi Linus Torvalds');
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it("under the console's content security policy the preview shows, runs nothing, and loads no remote image", async () => {
    const strict = await browser.newContext({ viewport: { width: 1440, height: 900 }, userAgent: DESKTOP_UA, reducedMotion: 'reduce' });
    try {
      const page = await signedIn(strict);
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Blocked script execution/i.test(m.text())) violations.push(m.text());
      });
      const composer = new ComposerPage(page);
      await composer.openFromList();
      await composer.subject.fill('Strict');
      const remote = 'https://images.example/logo.png';
      await composer.body.fill(
        `<p style="color:#1565c0">Hi {{name}}</p><script>parent.document.title='x'</script><img src="${remote}" alt="logo">`,
      );
      await composer.preview.getByText('Hi Ada Lovelace').waitFor();
      // Inline styles apply; the script does not run (sandbox without scripts); the remote image is refused by the CSP.
      expect(
        await composer.preview
          .getByText('Hi Ada Lovelace')
          .evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color),
      ).toBe('rgb(21, 101, 192)');
      expect(await page.title()).not.toBe('x');
      await expect.poll(() => violations.some((v) => v.includes(remote) && /img-src/.test(v))).toBe(true);
      await expect.poll(() => violations.some((v) => /Blocked script execution in 'about:srcdoc'/.test(v))).toBe(true);
      // Nothing of the console's own is refused.
      expect(violations.filter((v) => !v.includes(remote) && !v.includes('about:srcdoc'))).toEqual([]);
    } finally {
      await strict.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
