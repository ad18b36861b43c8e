import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/p/:appId/links: the list, the new-link form (with its upload), the share dialog, a link's details and its edit form. */
export class LinksPage {
  readonly heading: Locator;
  readonly newButton: Locator;
  readonly form: Locator;
  readonly shareDialog: Locator;
  readonly detail: Locator;
  /** A link's reading analytics, first on its page: the KPI cards, the per-page chart, the readers. */
  readonly analytics: Locator;
  readonly pageChart: Locator;
  readonly readers: Locator;
  readonly exportCsv: Locator;
  readonly versionPicker: Locator;
  readonly settings: Locator;
  /** The settings' **Edit**, which opens the link form on them. */
  readonly editButton: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'links.title') });
    this.newButton = page.getByRole('button', { name: text(lang, 'links.new') });
    this.form = page.getByRole('dialog').filter({ hasText: text(lang, 'links.form.title') });
    this.shareDialog = page.getByRole('dialog').filter({ has: page.locator('[data-share-url]') });
    this.detail = page.getByRole('dialog').filter({ hasText: text(lang, 'links.detail.views') });
    this.analytics = this.detail.locator('[data-link-analytics]');
    this.pageChart = this.analytics.getByRole('img', { name: text(lang, 'linkAnalytics.chart.label') });
    this.readers = this.analytics.locator('[data-readers]');
    this.exportCsv = this.analytics.getByRole('button', { name: text(lang, 'linkAnalytics.export') });
    this.versionPicker = this.analytics.getByRole('combobox', { name: text(lang, 'linkAnalytics.version.label') });
    this.settings = this.detail
      .locator('.ant-card')
      .filter({ has: page.getByRole('heading', { name: text(lang, 'links.detail.settings') }) });
    this.editButton = this.settings.getByRole('button', { name: buttonName(lang, 'linkGates.edit.action') });
  }

  /** A setting's value in the details, by its label ("Watermark" → "Yes"). */
  setting(label: string): Locator {
    return this.settings
      .locator('.ant-descriptions-item')
      .filter({ has: this.page.locator('.ant-descriptions-item-label').getByText(label, { exact: true }) })
      .locator('.ant-descriptions-item-content');
  }

  /** The edit form of the link named `name`. */
  editForm(name: string): Locator {
    return this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'linkGates.edit.title', { name }) });
  }

  /** Opens the edit form of the link whose details are open; answers it. */
  async edit(name: string): Promise<Locator> {
    await this.editButton.click();
    const form = this.editForm(name);
    await form.waitFor();
    return form;
  }

  /** Saves the edit form and waits until it has closed and the details say the link is saved. */
  async saveEdit(form: Locator): Promise<void> {
    await form.getByRole('button', { name: buttonName(this.lang, 'linkGates.edit.save') }).click();
    await form.waitFor({ state: 'detached' });
    await this.page.getByText(text(this.lang, 'linkGates.edit.saved')).waitFor();
  }

  /** A KPI card (views, viewers, completion, median) of the analytics: its title and value. */
  kpi(key: 'views' | 'viewers' | 'completion' | 'median'): Locator {
    return this.analytics.locator(`[data-kpi="${key}"]`);
  }

  /** The readers listed (a table's rows at a desktop's width, a list's items on a phone). */
  readerRows(): Locator {
    return this.readers.locator('tr[data-row-key], li[data-reader]');
  }

  /** Picks a version of the deck in the analytics' picker, by its text. */
  async pickVersion(label: string): Promise<void> {
    // The select's own box takes the press (its search input lies under the chosen value).
    const combobox = this.page.getByRole('combobox', { name: text(this.lang, 'linkAnalytics.version.label') });
    await this.analytics.locator('.ant-select', { has: combobox }).click();
    await this.page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: label }).first().click();
    await this.page.locator('.ant-select-dropdown:visible').waitFor({ state: 'detached' });
  }

  async open(base: string, appId: string): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/links`);
    await this.heading.waitFor();
  }

  /** Uploads a file in the new-link form and waits until its pages are ready. */
  async uploadDeck(file: string): Promise<void> {
    if (!(await this.form.isVisible())) await this.newButton.click();
    await this.form.locator('input[type=file]').setInputFiles(file);
    await this.form.locator('[data-file-status="ready"]').waitFor({ timeout: 30_000 });
  }

  /** Picks the customer the link is for, by searching their name. */
  async directTo(name: string): Promise<void> {
    const select = this.form.getByLabel(text(this.lang, 'links.form.customer'));
    await select.click();
    await select.fill(name);
    // antd draws each choice twice: a hidden one for screen readers, and the one a person taps.
    await this.page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: name }).first().click();
    await this.page.locator('.ant-select-dropdown:visible').waitFor({ state: 'detached' });
  }

  async fillName(name: string): Promise<void> {
    await this.form.getByLabel(text(this.lang, 'links.form.name'), { exact: true }).fill(name);
  }

  /** The title the link's readers see (the name is the team's own). */
  async fillTitle(title: string): Promise<void> {
    await this.form.getByLabel(text(this.lang, 'links.form.publicTitle')).fill(title);
  }

  /** Creates the link; answers its share address, as the share dialog shows it. */
  async create(): Promise<string> {
    await this.form.getByRole('button', { name: text(this.lang, 'links.form.create') }).click();
    await this.shareDialog.waitFor();
    return this.shareDialog.locator('[data-share-url]').inputValue();
  }

  link(name: string): Locator {
    return this.page.getByRole('link', { name, exact: true });
  }

  viewLogs(): Locator {
    return this.detail.locator('[data-view-log]');
  }
}
