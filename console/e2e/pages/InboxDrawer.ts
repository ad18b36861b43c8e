import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** The header's bell and the inbox it opens: the unread count, the notifications, mark all read. */
export class InboxDrawer {
  readonly bell: Locator;
  readonly drawer: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang,
  ) {
    this.bell = page.getByRole('banner').locator('button[data-unread]');
    this.drawer = page.getByRole('dialog').filter({ has: page.getByText(text(lang, 'notifications.inbox.title'), { exact: true }) });
  }

  /** The unread count the bell shows (and says in its name). */
  async unread(): Promise<number> {
    return Number(await this.bell.getAttribute('data-unread'));
  }

  /** The bell's accessible name for a count. */
  bellName(count: number): string {
    return count > 0 ? text(this.lang, 'common.header.inboxUnread', { count }) : text(this.lang, 'common.header.inbox');
  }

  async open(): Promise<void> {
    await this.bell.click();
    await this.drawer.waitFor();
  }

  /** A notification of the list, by words of its headline. */
  item(words: string): Locator {
    return this.drawer.locator('[data-notification]').filter({ hasText: words });
  }

  async markAllRead(): Promise<void> {
    await this.drawer.getByRole('button', { name: buttonName(this.lang, 'notifications.inbox.markAllRead') }).click();
  }

  async openSettings(): Promise<void> {
    await this.drawer.getByRole('link', { name: text(this.lang, 'notifications.inbox.settings') }).click();
  }
}
