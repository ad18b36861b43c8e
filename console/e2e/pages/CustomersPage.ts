import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/customers: the list, its search and filters, and the new-customer form. */
export class CustomersPage {
  readonly heading: Locator;
  readonly search: Locator;
  readonly newButton: Locator;
  readonly form: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'customers.title') });
    this.search = page.getByLabel(text(lang, 'customers.searchLabel'));
    this.newButton = page.getByRole('button', { name: text(lang, 'customers.new') });
    this.form = page.getByRole('dialog').filter({ hasText: text(lang, 'customers.createTitle') });
  }

  async open(base: string, appId: string, query = ''): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/customers${query}`);
    await this.heading.waitFor();
  }

  /** Fills the new-customer form by the fields' labels (the console's own, for the built-in attributes). */
  async fillNew(values: Partial<Record<'name' | 'phone' | 'email' | 'company', string>>): Promise<void> {
    await this.openNew();
    for (const [field, value] of Object.entries(values)) await this.field(field).fill(value);
  }

  /**
   * Opens the new-customer form (loaded when first opened). A press that lands while the page is still
   * laying itself out again (a viewport change between widths) can go unheard, as a person's would: the
   * button is pressed again when no form came.
   */
  async openNew(): Promise<void> {
    for (let press = 1; !(await this.form.isVisible()); press++) {
      await this.newButton.click();
      const opened = await this.form
        .getByLabel(text(this.lang, 'customers.fields.name'), { exact: true })
        .waitFor({ timeout: press < 3 ? 15_000 : 60_000 })
        .then(() => true)
        .catch(() => false);
      if (opened) return;
      if (press === 3) throw new Error('the new-customer form did not open after three presses');
    }
  }

  async save(): Promise<void> {
    await this.saveButton().click();
  }

  /** A field of the form, by its label (the console's own, for the built-in attributes). */
  field(field: string): Locator {
    return this.form.getByLabel(text(this.lang, `customers.fields.${field}`), { exact: true });
  }

  /** The form's Save button, at its end. */
  saveButton(): Locator {
    return this.form.getByRole('button', { name: text(this.lang, 'common.actions.save') }).last();
  }

  /** The elements of a field's messages: its accessible description, once the field is marked invalid. */
  async fieldMessages(field: string): Promise<Locator[]> {
    const input = this.field(field);
    await this.form.locator('[aria-invalid="true"]').first().waitFor();
    if ((await input.getAttribute('aria-invalid')) !== 'true') return [];
    const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
    return ids.map((id) => this.page.locator(`[id="${id}"]`));
  }

  /** The messages a field of the form shows, a line each ('' when it shows none). */
  async fieldError(field: string): Promise<string> {
    const texts = await Promise.all((await this.fieldMessages(field)).map((m) => m.innerText()));
    return texts.join('\n');
  }

  async searchFor(words: string): Promise<void> {
    await this.search.fill(words);
    await this.search.press('Enter');
  }

  customerLink(name: string): Locator {
    return this.page.getByRole('link', { name, exact: true });
  }
}
