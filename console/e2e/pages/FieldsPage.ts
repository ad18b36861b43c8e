import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/fields: the project's customer fields, and (Master, Admin) their editor. */
export class FieldsPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'customers.fieldEditor.title') });
  }

  async open(base: string, appId: string): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/fields`);
    await this.heading.waitFor();
  }

  /** Adds a text field by its name and label. */
  async addText(name: string, label: string): Promise<void> {
    await this.page.getByRole('button', { name: text(this.lang, 'customers.fieldEditor.add') }).click();
    const dialog = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'customers.fieldEditor.addTitle') });
    await dialog.getByLabel(text(this.lang, 'customers.fieldEditor.name'), { exact: true }).fill(name);
    await dialog.getByLabel(text(this.lang, 'customers.fieldEditor.label'), { exact: true }).fill(label);
    await dialog.getByRole('button', { name: text(this.lang, 'common.actions.save') }).click();
    await this.page.getByText(text(this.lang, 'customers.fieldEditor.saved')).waitFor();
  }

  /** A field's row of the table (wide screen) or its card (phone). */
  row(label: string): Locator {
    return this.page.getByRole('row').or(this.page.getByRole('main').getByRole('listitem')).filter({ hasText: label });
  }

  /** Opens the editor of the field `label` with its row's (or card's) Edit button; the editor's dialog. */
  async edit(label: string): Promise<Locator> {
    await this.row(label)
      .getByRole('button', { name: text(this.lang, 'common.actions.edit'), exact: true })
      .click();
    const dialog = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'customers.fieldEditor.editTitle') });
    await dialog.waitFor();
    return dialog;
  }
}
