import type { FrameLocator, Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/posts/new: the campaign composer. */
export class ComposerPage {
  readonly heading: Locator;
  readonly subject: Locator;
  readonly body: Locator;
  readonly preview: FrameLocator;
  readonly previewFrame: Locator;
  readonly recipientCount: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'campaigns.compose.title') });
    this.subject = page.getByLabel(text(lang, 'campaigns.compose.subject'), { exact: true });
    this.body = page.getByLabel(text(lang, 'campaigns.compose.body'), { exact: true });
    this.previewFrame = page.locator(`iframe[title="${text(lang, 'campaigns.compose.previewFrame')}"]`);
    this.preview = page.frameLocator(`iframe[title="${text(lang, 'campaigns.compose.previewFrame')}"]`);
    this.recipientCount = page.getByTestId('recipient-count');
  }

  /** Opens the composer from the mass e-mail list's "New campaign". */
  async openFromList(): Promise<void> {
    await this.page.getByRole('button', { name: text(this.lang, 'campaigns.new') }).click();
    await this.heading.waitFor();
  }

  /** Opens the composer from the list and writes a draft's subject and body. */
  async startDraft(subject: string, body: string): Promise<void> {
    await this.openFromList();
    await this.subject.fill(subject);
    await this.body.fill(body);
  }

  /** Inserts a merge field at the body's cursor with its button. */
  async insertField(field: string): Promise<void> {
    await this.page
      .getByRole('group', { name: text(this.lang, 'campaigns.compose.insertField') })
      .getByRole('button', { name: `{{${field}}}` })
      .click();
  }

  /** Picks a customer found by the search of the recipients' field. */
  async pickCustomer(search: string, option: string): Promise<void> {
    const input = this.page.getByLabel(text(this.lang, 'campaigns.compose.customers'), { exact: true });
    await input.click();
    await input.fill(search);
    await this.page.locator('.ant-select-item-option').filter({ hasText: option }).first().click();
    await this.page.keyboard.press('Escape');
  }

  /** The error shown under a field, once there is one. */
  fieldError(label: string): Locator {
    return this.page
      .locator('.ant-form-item')
      .filter({ has: this.page.getByLabel(label, { exact: true }) })
      .locator('.ant-form-item-explain-error');
  }

  async sendTest(): Promise<void> {
    await this.page.getByRole('button', { name: text(this.lang, 'campaigns.compose.sendTest') }).click();
  }

  /** Send…, then the confirmation: its text, and the campaign sent. */
  async send(): Promise<string> {
    await this.page.getByRole('button', { name: text(this.lang, 'campaigns.compose.send') }).click();
    const dialog = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'campaigns.compose.confirmTitle') });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: text(this.lang, 'campaigns.compose.confirmSend'), exact: true });
    // Enabled once the count of the draft as it is now is known.
    for (let i = 0; !(await confirm.isEnabled()); i++) {
      if (i > 100) throw new Error('the confirmation never had its count');
      await this.page.waitForTimeout(100);
    }
    const said = await dialog.innerText();
    await confirm.click();
    return said;
  }
}
