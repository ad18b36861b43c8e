import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/reset-password: a forgotten password, by a code sent to the account. */
export class ResetPasswordPage {
  readonly heading: Locator;
  readonly username: Locator;
  readonly code: Locator;
  readonly password: Locator;
  readonly confirm: Locator;
  readonly sendCode: Locator;
  readonly submit: Locator;
  readonly resend: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'auth.reset.title') });
    this.username = page.getByLabel(text(lang, 'auth.reset.username'));
    this.code = page.getByLabel(text(lang, 'auth.reset.code'), { exact: true });
    this.password = page.getByLabel(text(lang, 'auth.reset.password'), { exact: true });
    this.confirm = page.getByLabel(text(lang, 'auth.reset.confirm'), { exact: true });
    this.sendCode = page.getByRole('button', { name: text(lang, 'auth.reset.sendCode') });
    this.submit = page.getByRole('button', { name: text(lang, 'auth.reset.submit') });
    this.resend = page.getByRole('button', { name: new RegExp(`^${text(lang, 'auth.reset.resend')}`) });
  }

  /** The message that the code is on its way, naming the account. */
  sent(username: string): Locator {
    return this.page.getByText(text(this.lang, 'auth.reset.sent', { username }));
  }

  async enterNewPassword(code: string, password: string, confirm = password): Promise<void> {
    await this.code.fill(code);
    await this.password.fill(password);
    await this.confirm.fill(confirm);
    await this.submit.click();
  }
}
