import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/home: who to call now (hot leads, by person or account) and today's tasks. */
export class HomePage {
  readonly heading: Locator;
  readonly hotLeads: Locator;
  readonly todayTasks: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'home.title') });
    this.hotLeads = page.getByTestId('hot-leads');
    this.todayTasks = page.getByTestId('today-tasks');
  }

  async open(base: string, appId: string, query = ''): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/home${query}`);
    await this.heading.waitFor();
  }

  /** The hot leads' customer ids, in their order. */
  async leadIds(): Promise<string[]> {
    return this.hotLeads.locator('[data-lead]').evaluateAll((els) => els.map((e) => e.getAttribute('data-lead') ?? ''));
  }

  /** A hot lead's row, by its customer id. */
  lead(customerId: string): Locator {
    return this.hotLeads.locator(`[data-lead="${customerId}"]`);
  }

  /** An account's row, by its name. */
  account(name: string): Locator {
    return this.hotLeads.locator(`[data-account="${name}"]`);
  }

  /** Shows people or accounts (antd's Segmented: the label over the hidden radio is what a person taps). */
  async show(which: 'people' | 'accounts'): Promise<void> {
    const radio = this.page.getByRole('radio', { name: text(this.lang, `home.hot.${which}`), exact: true });
    await this.page
      .getByRole('radiogroup', { name: text(this.lang, 'home.hot.view') })
      .locator('label')
      .filter({ has: radio })
      .click();
  }

  /** A task of today's, its checkbox named by its title. */
  task(title: string): Locator {
    return this.todayTasks.getByRole('checkbox', { name: title });
  }
}
