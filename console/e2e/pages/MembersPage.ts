import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/members */
export class MembersPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'members.title') });
  }

  async add(userId: number): Promise<void> {
    await this.page.getByRole('button', { name: text(this.lang, 'members.addById') }).click();
    const dialog = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'members.addTitle') });
    await dialog.getByLabel(text(this.lang, 'members.userId')).fill(String(userId));
    await dialog.getByRole('button', { name: text(this.lang, 'common.actions.save') }).click();
    await this.page.getByText(text(this.lang, 'members.added')).waitFor();
  }

  member(name: string): Locator {
    return this.page.getByRole('listitem').filter({ hasText: name });
  }
}
