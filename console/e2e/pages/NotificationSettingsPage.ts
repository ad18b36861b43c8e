import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/notifications: what the member is told, and where. */
export class NotificationSettingsPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang,
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'notifications.settings.title') });
  }

  /** A signal's switch, named by its row's words. */
  signal(signal: string): Locator {
    return this.page.getByRole('switch', { name: text(this.lang, `notifications.settings.signals.${signal}`) });
  }

  async email(mode: 'off' | 'instant' | 'digest'): Promise<void> {
    await this.page.getByRole('radio', { name: text(this.lang, `notifications.settings.emailModes.${mode}`) }).check();
  }

  /** Picks the digest's hour from its list ("18:00"). */
  async digestHour(hour: string): Promise<void> {
    // antd draws the chosen value over the search input: a tap lands on the value.
    await this.page.getByRole('combobox', { name: text(this.lang, 'notifications.settings.digestHour') }).click({ force: true });
    await this.page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: hour }).first().click();
  }

  /** The link of a project the member manages to its chat channels. */
  async chatChannels(): Promise<void> {
    await this.page
      .getByRole('link', { name: text(this.lang, 'notifications.settings.chatLink') })
      .first()
      .click();
  }

  async save(): Promise<void> {
    await this.page.getByRole('button', { name: buttonName(this.lang, 'notifications.settings.save') }).click();
    await this.page.getByText(text(this.lang, 'notifications.settings.saved'), { exact: true }).waitFor();
  }
}
