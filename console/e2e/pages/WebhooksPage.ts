import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/webhooks: the list, adding one, a test event and the deliveries. */
export class WebhooksPage {
  readonly heading: Locator;
  readonly addButton: Locator;
  readonly form: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'webhooks.title') });
    this.addButton = page.getByRole('button', { name: text(lang, 'webhooks.add') });
    this.form = page.getByRole('dialog').filter({ hasText: text(lang, 'webhooks.addTitle') });
  }

  async open(base: string, appId: string): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/webhooks`);
    await this.heading.waitFor();
  }

  /** Adds a webhook for every event; closes the dialog that shows its secret, and answers the secret. */
  async add(url: string): Promise<string> {
    await this.addButton.click();
    await this.form.getByLabel(text(this.lang, 'webhooks.url')).fill(url);
    await this.form.getByRole('button', { name: text(this.lang, 'common.actions.save') }).click();
    const created = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'webhooks.createdTitle') });
    await created.waitFor();
    const secret = (await created.locator('code').innerText()).trim();
    await created.getByRole('button', { name: /close|关闭/i }).click();
    await created.waitFor({ state: 'hidden' });
    return secret;
  }

  card(url: string): Locator {
    return this.page.locator('.ant-card').filter({ hasText: url });
  }

  async test(url: string): Promise<Locator> {
    await this.card(url)
      .getByRole('button', { name: text(this.lang, 'webhooks.test') })
      .click();
    return this.card(url).getByRole('status');
  }
}
