import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/duplicates */
export class DuplicatesPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'customers.duplicates.title') });
  }

  /** The set of customers sharing `value`. */
  set(value: string): Locator {
    return this.page.locator('.ant-card').filter({ hasText: value });
  }

  /** Keeps `keep` and merges the others of the set into it, confirming. */
  async merge(value: string, keep: string): Promise<void> {
    const set = this.set(value);
    await set.locator('label').filter({ hasText: keep }).click();
    await set.getByRole('button', { name: text(this.lang, 'customers.duplicates.merge') }).click();
    await this.page
      .getByRole('tooltip')
      .getByRole('button', { name: text(this.lang, 'customers.duplicates.merge') })
      .click();
    await this.page.getByText(text(this.lang, 'customers.duplicates.merged')).waitFor();
  }
}
