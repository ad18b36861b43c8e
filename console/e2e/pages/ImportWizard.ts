import fs from 'node:fs';
import type { Download, Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** The customers page's import wizard (a drawer) and export menu. */
export class ImportWizard {
  readonly drawer: Locator;
  readonly importButton: Locator;
  readonly exportButton: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.drawer = page.getByRole('dialog').filter({ hasText: text(lang, 'customers.import.title') });
    this.importButton = page.getByRole('button', { name: buttonName(lang, 'customers.import.button') });
    this.exportButton = page.getByRole('button', { name: new RegExp(`^export ${text(lang, 'customers.export.button')}`) });
  }

  /** A button of the drawer by its text. */
  button(key: string): Locator {
    return this.drawer.getByRole('button', { name: buttonName(this.lang, key) });
  }

  async chooseFile(name: string, content: string): Promise<void> {
    await this.drawer.locator('input[type=file]').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(content) });
    await this.drawer.getByText(name, { exact: false }).first().waitFor();
  }

  /** The field select of a column, by the column's header. */
  columnSelect(column: string): Locator {
    return this.drawer.getByRole('combobox', { name: text(this.lang, 'customers.import.mapColumn', { column }), exact: true });
  }

  /** The field a column is mapped to, as shown. */
  async mappedTo(column: string): Promise<string> {
    const select = this.page.getByRole('combobox', { name: text(this.lang, 'customers.import.mapColumn', { column }), exact: true });
    const item = this.drawer.getByRole('listitem').filter({ has: select });
    return (await item.locator('.ant-select-selection-item').innerText()).trim();
  }

  /** Maps a column with the keyboard: focus its select, type the field's label, Enter. */
  async mapWithKeyboard(column: string, label: string): Promise<void> {
    const select = this.columnSelect(column);
    await select.focus();
    await select.press('Enter');
    await select.pressSequentially(label);
    await this.page.keyboard.press('Enter');
  }

  /** The counts a summary shows (created, updated, skipped, failed). */
  async counts(group: 'wouldDo' | 'did'): Promise<Record<string, number>> {
    const box = this.drawer.getByRole('group', { name: text(this.lang, `customers.import.${group}`) });
    const out: Record<string, number> = {};
    for (const key of ['created', 'updated', 'skipped', 'failed']) {
      const stat = box.locator('.ant-statistic').filter({ hasText: text(this.lang, `customers.import.counts.${key}`) });
      out[key] = Number((await stat.locator('.ant-statistic-content-value').innerText()).replace(/\D/g, ''));
    }
    return out;
  }

  /** What an import that is over says it did (`done` in the drawer, `finishedBanner` above the list), each count with its noun. */
  summary(file: string, counts: Record<'created' | 'updated' | 'skipped' | 'failed', number>, key = 'done'): string {
    const part = (k: keyof typeof counts) => text(this.lang, `customers.import.outcome.${k}`, { count: counts[k] });
    const parts = { created: part('created'), updated: part('updated'), skipped: part('skipped'), failed: part('failed') };
    return text(this.lang, `customers.import.${key}`, { file, ...parts });
  }

  /** Clicks what starts a download and answers the file's name and text. */
  async download(click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
    const [download] = (await Promise.all([this.page.waitForEvent('download'), click()])) as [Download, void];
    const path = await download.path();
    return { name: download.suggestedFilename(), bytes: fs.readFileSync(path) };
  }
}
