import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/p/:appId/settings: name, description, region and share domain, the project secret, the activity log. */
export class SettingsPage {
  readonly heading: Locator;
  readonly secret: Locator;
  readonly revealButton: Locator;
  readonly rotateButton: Locator;
  readonly rotatedNotice: Locator;
  readonly shareDomain: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'settings.title') });
    this.secret = page.getByLabel(text(lang, 'settings.secret.title'), { exact: true });
    this.revealButton = page.getByRole('button', { name: text(lang, 'settings.secret.reveal') });
    this.rotateButton = page.getByRole('button', { name: text(lang, 'settings.secret.rotate') });
    this.rotatedNotice = page.getByRole('status').filter({ hasText: text(lang, 'settings.secret.rotatedTitle') });
    this.shareDomain = page.getByLabel(text(lang, 'settings.shareDomain'), { exact: true });
  }

  /** Saves the project form (its first Save button). */
  async save(): Promise<void> {
    await this.page
      .getByRole('button', { name: buttonName(this.lang, 'common.actions.save') })
      .first()
      .click();
  }

  async open(base: string, appId: string): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/settings`);
    await this.heading.waitFor();
  }

  async revealedSecret(): Promise<string> {
    if ((await this.secret.getAttribute('data-secret')) !== 'shown') await this.revealButton.click();
    await this.page.locator('[data-secret="shown"]').waitFor();
    return this.secret.inputValue();
  }

  /** Replaces the secret, confirming; waits for the notice saying until when the old one works. */
  async rotate(): Promise<void> {
    await this.rotateButton.click();
    await this.page
      .getByRole('tooltip')
      .getByRole('button', { name: text(this.lang, 'settings.secret.rotate') })
      .click();
    await this.rotatedNotice.waitFor();
  }
}
