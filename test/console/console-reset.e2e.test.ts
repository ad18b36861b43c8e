// lanes: sqlite
import fs from 'node:fs';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/http/error-codes.ts';
import { type Lang, text } from '../../console/e2e/locale.ts';
import { ProjectsPage } from '../../console/e2e/pages/ProjectsPage.ts';
import { ResetPasswordPage } from '../../console/e2e/pages/ResetPasswordPage.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { launchChromium, personContext } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { type Spawned, freePort, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

/**
 * A forgotten password in a real browser against a real server process: at 1440 px in English the
 * person asks for a code by e-mail (read from an in-process SMTP server), gets a wrong code and a
 * mistyped confirmation told, sets a new password and signs in with it; the session they had open on
 * their phone has ended. At 375 px on a touch screen in Chinese, the same person does it again by
 * mobile number, the code relayed from the server's log, with the keyboard. Screenshots go to
 * CONSOLE_SHOTS_DIR (default /tmp/console-shots).
 */
const PHONE = '13912345678';
const EMAIL = 'Ada.Reset@Example.com';
const FIRST = 'the first password';
const SECOND = 'a second password';
const THIRD = 'a third password here';

const processes = useProcessDatabase();
let base = '';
let server: Spawned;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
let wide: Page;
let phone: Page;
const pageErrors: string[] = [];

/** Nothing wider than the screen: a phone needs no sideways scrolling. */
async function expectFits(page: Page, what: string): Promise<void> {
  const { scroll, width } = await page.evaluate(() => {
    const g = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
    return { scroll: g.document.documentElement.scrollWidth, width: g.innerWidth };
  });
  expect(scroll, what).toBeLessThanOrEqual(width);
}

/** The newest reset code the server wrote to its log for `to` (a mobile number: no SMS gateway), once there are more than `skip`. */
async function codeFromLog(to: string, skip: number): Promise<string> {
  const until = Date.now() + 15_000;
  for (;;) {
    const codes = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { verification?: { to?: string; code?: string; purpose?: string } }).verification)
      .filter((v) => v?.to === to && v.purpose === 'reset')
      .map((v) => v?.code ?? '');
    if (codes.length > skip) return codes[codes.length - 1] as string;
    if (Date.now() > until) throw new Error(`no reset code for ${to} in the server's log`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const contextFor = (width: number, touch: boolean, locale: Lang): Promise<BrowserContext> =>
  personContext(browser, { width, touch, locale, timezoneId: 'Asia/Shanghai', pageErrors, timeout: 15_000 });

beforeAll(async () => {
  expect(fs.existsSync(new URL('../../console/dist/index.html', import.meta.url)), 'console/dist is missing: run `npm run build`').toBe(
    true,
  );
  mailbox = await startMailbox();
  const port = await freePort();
  server = processes.started(
    runCli(['serve'], {
      ...processes.db.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      // The log sender writes codes for mobile numbers at info.
      LOG_LEVEL: 'info',
      SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
      SMTP_FROM: 'Rapport <accounts@rapport.example>',
      SETUP_CODE: 'console-reset-setup-code',
    }),
  );
  base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/healthz`);
  // The person: the server's first user (a mobile number), with an e-mail added to the profile.
  const signup = await fetch(`${base}/svcuser/console/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ phoneNum: PHONE, password: FIRST, nickname: 'Ada', setupCode: 'console-reset-setup-code' }),
  });
  expect(signup.status, await signup.clone().text()).toBe(200);
  const { access_token } = (await signup.json()) as { access_token: string };
  const update = await fetch(`${base}/api/v1.7/user/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
    body: JSON.stringify({ email: EMAIL }),
  });
  expect(await update.json()).toMatchObject({ status: 1 });
  browser = await launchChromium();
  desktop = await contextFor(1440, false, 'en-US');
  mobile = await contextFor(375, true, 'zh-CN');
  wide = await desktop.newPage();
  phone = await mobile.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await mailbox?.close();
});

describe('a forgotten password, reset from the console', { timeout: 120_000 }, () => {
  it('the phone has a session open with the first password', async () => {
    const signIn = new SignInPage(phone, 'zh-CN');
    await signIn.open(base);
    await signIn.signIn(PHONE, FIRST);
    await new ProjectsPage(phone, 'zh-CN').heading.waitFor();
  });

  it('at 1440 px: "Forgot password?" carries the e-mail typed to the reset page, and a code comes by e-mail', async () => {
    const signIn = new SignInPage(wide);
    await signIn.open(base);
    await wide.getByLabel(text('en-US', 'auth.signIn.username')).fill(EMAIL.toLowerCase());
    await signIn.forgotLink().click();
    const reset = new ResetPasswordPage(wide);
    await reset.heading.waitFor();
    expect(new URL(wide.url()).pathname).toBe('/console/reset-password');
    expect(await reset.username.inputValue()).toBe(EMAIL.toLowerCase());
    await expectAccessible(wide, 'reset: ask for a code (1440)');
    await shot(wide, 'reset-password-1440');

    await reset.sendCode.click();
    await reset.sent(EMAIL.toLowerCase()).waitFor();
    const [mail] = await mailbox.waitFor(1);
    // To the address as the account has it, whatever its case when typed (the mailer lower-cases the domain).
    expect(mail?.to).toEqual(['Ada.Reset@example.com']);
    expect(mail?.mail.subject).toBe('Your Rapport password reset code');
    // Another code only after the server's minute: the button counts down.
    expect(await reset.resend.isDisabled()).toBe(true);
    await expectAccessible(wide, 'reset: enter the code (1440)');
    await shot(wide, 'reset-code-1440');
  });

  it("tells a mistyped confirmation, and a wrong code in the server's words", async () => {
    const reset = new ResetPasswordPage(wide);
    const code = /\b(\d{6})\b/.exec(mailbox.inbox[0]?.mail.text ?? '')?.[1] ?? '';
    expect(code).toMatch(/^\d{6}$/);
    await reset.enterNewPassword(code, SECOND, `${SECOND}!`);
    await wide.getByText(text('en-US', 'auth.reset.mismatch')).waitFor();
    expect(new URL(wide.url()).pathname).toBe('/console/reset-password');

    await reset.enterNewPassword(code === '123456' ? '654321' : '123456', SECOND);
    await wide.getByRole('alert').filter({ hasText: ERROR_CODES.code_not_correct.en }).waitFor();
    await expectAccessible(wide, 'reset: a wrong code (1440)');
  });

  it('sets the new password with the right code, is sent back to sign in with it, and signs in', async () => {
    const reset = new ResetPasswordPage(wide);
    const code = /\b(\d{6})\b/.exec(mailbox.inbox[0]?.mail.text ?? '')?.[1] ?? '';
    await reset.enterNewPassword(code, SECOND);
    const signIn = new SignInPage(wide);
    await signIn.heading.waitFor();
    expect(new URL(wide.url()).pathname).toBe('/console/sign-in');
    await wide.getByText(text('en-US', 'auth.signIn.passwordReset')).waitFor();
    // The old password no longer signs in.
    await signIn.signIn(EMAIL, FIRST);
    await wide.getByRole('alert').filter({ hasText: ERROR_CODES.invalid_grant.en }).waitFor();
    await signIn.signIn(EMAIL, SECOND);
    await new ProjectsPage(wide).heading.waitFor();
  });

  it("ended the phone's session: a reload asks to sign in", async () => {
    await phone.reload();
    await new SignInPage(phone, 'zh-CN').heading.waitFor();
    expect(new URL(phone.url()).pathname).toBe('/console/sign-in');
  });

  it('at 375 px in Chinese, by mobile number and keyboard: the code from the server log sets a third password', async () => {
    const signIn = new SignInPage(phone, 'zh-CN');
    await expectFits(phone, 'sign-in (375)');
    await signIn.forgotLink().click();
    const reset = new ResetPasswordPage(phone, 'zh-CN');
    await reset.heading.waitFor();
    await expectFits(phone, 'reset: ask (375)');
    await expectAccessible(phone, 'reset: ask for a code (375, zh-CN)');
    await shot(phone, 'reset-password-375');

    // The name field has the focus; Enter sends the code.
    await phone.keyboard.type(PHONE);
    await phone.keyboard.press('Enter');
    await reset.sent(PHONE).waitFor();
    const code = await codeFromLog(PHONE, 0);
    await expectFits(phone, 'reset: code (375)');
    await expectAccessible(phone, 'reset: enter the code (375, zh-CN)');
    await shot(phone, 'reset-code-375');

    // The code field has the focus; Tab goes on to each password, Enter submits.
    const focused = (field: typeof reset.code) =>
      field.evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);
    expect(await focused(reset.code)).toBe(true);
    await phone.keyboard.type(code);
    await phone.keyboard.press('Tab');
    expect(await focused(reset.password)).toBe(true);
    await phone.keyboard.type(THIRD);
    await phone.keyboard.press('Tab');
    expect(await focused(reset.confirm)).toBe(true);
    await phone.keyboard.type(THIRD);
    await phone.keyboard.press('Enter');

    await signIn.heading.waitFor();
    await phone.getByText(text('zh-CN', 'auth.signIn.passwordReset')).waitFor();
    expect(await phone.getByLabel(text('zh-CN', 'auth.signIn.username')).inputValue()).toBe(PHONE);
    await expectFits(phone, 'sign-in after the reset (375)');
    await signIn.signIn(PHONE, THIRD);
    await new ProjectsPage(phone, 'zh-CN').heading.waitFor();
  });

  it('had no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
