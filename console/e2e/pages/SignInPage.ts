import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/sign-in: sign-in, and sign-up while the server allows it. */
export class SignInPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'auth.signIn.title') });
  }

  async open(base: string): Promise<void> {
    await this.page.goto(`${base}/console/sign-in`);
    await this.heading.waitFor();
  }

  /** Sign-up; the first account of a server gives the setup code the server logged (SETUP_CODE in tests). */
  async signUp(identifier: string, name: string, password: string, setupCode?: string): Promise<void> {
    await this.page.getByRole('tab', { name: text(this.lang, 'auth.signUp.tab') }).click();
    if (setupCode !== undefined) await this.page.getByLabel(text(this.lang, 'auth.signUp.setupCode')).fill(setupCode);
    await this.page.getByLabel(text(this.lang, 'auth.signUp.identifier')).fill(identifier);
    await this.page.getByLabel(text(this.lang, 'auth.signUp.nickname')).fill(name);
    await this.page.getByLabel(text(this.lang, 'auth.signUp.password')).fill(password);
    await this.page.getByRole('button', { name: text(this.lang, 'auth.signUp.submit') }).click();
  }

  /** The sign-in form's link to the forgotten-password page. */
  forgotLink(): Locator {
    return this.page.getByRole('link', { name: text(this.lang, 'auth.signIn.forgot') });
  }

  async signIn(username: string, password: string): Promise<void> {
    const tab = this.page.getByRole('tab', { name: buttonName(this.lang, 'auth.signIn.submit') });
    if (await tab.isVisible()) await tab.click();
    await this.page.getByLabel(text(this.lang, 'auth.signIn.username')).fill(username);
    await this.page.getByLabel(text(this.lang, 'auth.signIn.password'), { exact: true }).fill(password);
    await this.page
      .getByRole('button', { name: buttonName(this.lang, 'auth.signIn.submit') })
      .last()
      .click();
  }
}
