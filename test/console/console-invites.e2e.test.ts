// lanes: sqlite
import fs from 'node:fs';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../console/e2e/locale.ts';
import { MembersPage } from '../../console/e2e/pages/MembersPage.ts';
import { ProjectsPage } from '../../console/e2e/pages/ProjectsPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { freePort, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * Team onboarding in a real browser against a real server process on a fresh database: the first
 * account with the setup code, inviting a colleague from the members page (no SMTP: the link to
 * copy), the colleague opening it on a phone in a fresh browser and creating their account there,
 * landing in the project; someone who has an account signing in from the link and joining; a
 * revoked link. Screenshots of the members page and the invitation's page at 375 and 1440 px.
 */
const PASSWORD = 'a long enough password';
const SETUP_CODE = 'console-invites-setup-code';
const PROJECT = 'Northwind Sales';

const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let desktop: BrowserContext;
let owner: Page;
let appId = '';
const pageErrors: string[] = [];

const contextFor = (width: number, touch: boolean): Promise<BrowserContext> =>
  personContext(browser, { width, touch, pageErrors, timeout: 15_000 });

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  processes.started(
    runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', PUBLIC_BASE_URL: base, SETUP_CODE }),
  );
  await waitForOk(`${base}/healthz`);
  browser = await launchChromium();
  desktop = await contextFor(1440, false);
  owner = await desktop.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('team onboarding', () => {
  it('the first account needs the setup code; then the owner makes a project', async () => {
    const signIn = new SignInPage(owner);
    await signIn.open(base);
    await owner.getByRole('tab', { name: text('en-US', 'auth.signUp.tab') }).click();
    await owner.getByLabel(text('en-US', 'auth.signUp.setupCode')).waitFor();
    await expectAccessible(owner, 'sign-up with the setup code');
    await shot(owner, 'sign-up-setup-code-1440');
    await signIn.signUp('owner@northwind.example', 'Olivia Owner', PASSWORD, 'not-the-setup-code');
    await owner.getByText('The setup code is missing or wrong', { exact: false }).first().waitFor();
    await owner.getByLabel(text('en-US', 'auth.signUp.setupCode')).fill(SETUP_CODE);
    await owner.getByRole('button', { name: text('en-US', 'auth.signUp.submit') }).click();
    const projects = new ProjectsPage(owner);
    await projects.heading.waitFor();
    await projects.create(PROJECT, 'Our team');
    await owner.waitForURL(/\/console\/p\/[^/]+\//);
    appId = /\/console\/p\/([^/]+)\//.exec(owner.url())?.[1] ?? '';
    expect(appId).not.toBe('');
  });

  it('invites a colleague without SMTP: the link to copy, then a pending invitation', async () => {
    const noise = watchNoise(owner);
    await owner.goto(`${base}/console/p/${appId}/members`);
    const members = new MembersPage(owner);
    await members.heading.waitFor();
    const url = await members.invite('sam@northwind.example');
    expect(url).toMatch(new RegExp(`^${base}/console/invite/[A-Za-z0-9_-]{43}$`));
    await owner.getByText(text('en-US', 'members.linkCopyOnly', { email: 'sam@northwind.example' })).waitFor();
    await expectAccessible(owner, 'the invitation link');
    await shot(owner, 'members-invitation-link-1440');
    await members.closeLink();
    await members.invitation('sam@northwind.example').waitFor();
    await expectAccessible(owner, 'members with a pending invitation');
    await shot(owner, 'members-invitations-1440');
    noise.stop();
    expect(noise.failures).toEqual([]);
    invited.sam = url;
  });

  it('the colleague opens the link on a phone, creates an account with sign-up closed, and lands in the project', async () => {
    const phone = await contextFor(375, true);
    const page = await phone.newPage();
    const noise = watchNoise(page);
    await page.goto(invited.sam);
    await page.getByRole('heading', { level: 1, name: text('en-US', 'members.accept.title', { project: PROJECT }) }).waitFor();
    await page.getByText(text('en-US', 'members.accept.signUpIntro', { email: 'sam@northwind.example' })).waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await expectAccessible(page, 'the invitation page on a phone');
    await shot(page, 'invite-375');
    await page.getByLabel(text('en-US', 'members.accept.nickname')).fill('Sam Sales');
    await page.getByLabel(text('en-US', 'members.accept.password')).fill(PASSWORD);
    await page.getByRole('button', { name: text('en-US', 'members.accept.create') }).click();
    await page.waitForURL(`${base}/console/p/${appId}/home`);
    await page.getByRole('heading', { level: 1, name: text('en-US', 'home.title') }).waitFor();
    noise.stop();
    expect(noise.failures).toEqual([]);
    // The link is used: opened again, it says so, in the same words as any other dead link.
    await page.goto(invited.sam);
    await page.getByRole('heading', { level: 1, name: text('en-US', 'members.accept.invalidTitle') }).waitFor();
    await phone.close();
    // The owner sees Sam as an accepted Sales member, and no pending invitation for them.
    await owner.reload();
    const members = new MembersPage(owner);
    await members.member('Sam Sales').waitFor();
    expect(await members.member('Sam Sales').getByText(text('en-US', 'members.pending')).count()).toBe(0);
    expect(await members.invitation('sam@northwind.example').count()).toBe(0);
  });

  it('someone with an account signs in from the link and joins with it', async () => {
    const made = runCli(['user', 'create', '--email', 'ada@elsewhere.example', '--name', 'Ada Admin'], processes.db.env, {
      input: `${PASSWORD}\n`,
    });
    expect(await made.exited).toBe(0);
    const members = new MembersPage(owner);
    const url = await members.invite('ada@elsewhere.example', 'Admin');
    await members.closeLink();
    const wide = await contextFor(1440, false);
    const page = await wide.newPage();
    const noise = watchNoise(page);
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: text('en-US', 'members.accept.title', { project: PROJECT }) }).waitFor();
    await expectAccessible(page, 'the invitation page at 1440 px');
    await shot(page, 'invite-1440');
    await page.getByRole('link', { name: text('en-US', 'members.accept.haveAccount') }).click();
    await new SignInPage(page).signIn('ada@elsewhere.example', PASSWORD);
    const join = page.getByRole('button', { name: text('en-US', 'members.accept.join', { project: PROJECT }) });
    await join.waitFor();
    await expectAccessible(page, 'joining signed in');
    await join.click();
    await page.waitForURL(`${base}/console/p/${appId}/home`);
    noise.stop();
    expect(noise.failures).toEqual([]);
    await wide.close();
    await owner.reload();
    await members.member('Ada Admin').getByText(text('en-US', 'members.roles.Admin'), { exact: true }).waitFor();
  });

  it('a revoked invitation leaves the list, and its link shows a dead end at 375 px', async () => {
    const members = new MembersPage(owner);
    const url = await members.invite('gone@northwind.example');
    await members.closeLink();
    await members.revoke('gone@northwind.example');
    expect(await members.invitation('gone@northwind.example').count()).toBe(0);
    const phone = await contextFor(375, true);
    const page = await phone.newPage();
    const noise = watchNoise(page);
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: text('en-US', 'members.accept.invalidTitle') }).waitFor();
    await expectAccessible(page, 'a dead invitation link');
    noise.stop();
    expect(noise.failures).toEqual([]);
    await phone.close();
  });

  it('the members page with its invitations at 375 px', async () => {
    const members = new MembersPage(owner);
    await members.invite('lee@northwind.example');
    await members.closeLink();
    const phone = await contextFor(375, true);
    const page = await phone.newPage();
    await new SignInPage(page).open(base);
    await new SignInPage(page).signIn('owner@northwind.example', PASSWORD);
    await new ProjectsPage(page).heading.waitFor();
    await page.goto(`${base}/console/p/${appId}/members`);
    await new MembersPage(page).invitation('lee@northwind.example').waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await expectAccessible(page, 'members at 375 px');
    await shot(page, 'members-invitations-375');
    await phone.close();
    expect(pageErrors).toEqual([]);
  });
});

const invited: { sam: string } = { sam: '' };
