import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/customers/:id: profile, activity and the timeline. */
export class CustomerPage {
  readonly timeline: Locator;
  readonly profile: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.timeline = page.getByRole('heading', { level: 2, name: text(lang, 'customer.timeline') });
    this.profile = page.getByRole('heading', { level: 2, name: text(lang, 'customer.profile') });
  }

  heading(name: string): Locator {
    return this.page.getByRole('heading', { level: 1, name });
  }

  /** A timeline entry by its title (customer.actions.<key> with its values). */
  entry(key: string, values: Record<string, string> = {}): Locator {
    return this.page.getByText(text(this.lang, `customer.actions.${key}`, values), { exact: true });
  }
}
