import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/p/:appId/channels: the project's chat channels, adding one, a test message. */
export class ChannelsPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang,
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'notifications.channels.title') });
  }

  /** Adds a channel of `kind` with its robot's address, a name and a signing secret. */
  async add(kind: 'dingtalk' | 'feishu' | 'wecom' | 'slack' | 'webhook', name: string, url: string, secret?: string): Promise<void> {
    await this.page.getByRole('button', { name: buttonName(this.lang, 'notifications.channels.add') }).click();
    const dialog = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'notifications.channels.addTitle') });
    await dialog.getByRole('combobox', { name: text(this.lang, 'notifications.channels.kind') }).click({ force: true });
    await this.page
      .locator('.ant-select-dropdown:visible .ant-select-item-option')
      .filter({ hasText: text(this.lang, `notifications.channels.kinds.${kind}`) })
      .first()
      .click();
    await dialog.getByLabel(text(this.lang, 'notifications.channels.name')).fill(name);
    await dialog.getByLabel(text(this.lang, 'notifications.channels.url')).fill(url);
    if (secret !== undefined) await dialog.getByLabel(text(this.lang, 'notifications.channels.secret')).fill(secret);
    await dialog.getByRole('button', { name: buttonName(this.lang, 'common.actions.save') }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  /** A channel's card, by its name. */
  card(name: string): Locator {
    return this.page.locator('[data-channel]').filter({ hasText: name });
  }

  async sendTest(name: string): Promise<Locator> {
    const card = this.card(name);
    await card.getByRole('button', { name: buttonName(this.lang, 'notifications.channels.test') }).click();
    return card.getByRole('status');
  }
}
