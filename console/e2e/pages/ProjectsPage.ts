import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/: the user's projects, invitations, a new project. */
export class ProjectsPage {
  readonly heading: Locator;
  readonly createButton: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'projects.title') });
    this.createButton = page.getByRole('button', { name: text(lang, 'projects.create') });
  }

  /** A new project; `region` (an ISO code) replaces the one the form proposes from the browser's language. */
  async create(name: string, description: string, region?: string): Promise<void> {
    await this.createButton.click();
    const dialog = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'projects.createTitle') });
    await dialog.getByLabel(text(this.lang, 'projects.name')).fill(name);
    await dialog.getByLabel(text(this.lang, 'projects.description')).fill(description);
    if (region !== undefined) {
      // Typed into the select's search by its code, "(CN)", then the one match taken.
      await dialog.getByLabel(text(this.lang, 'projects.region'), { exact: true }).focus();
      await this.page.keyboard.type(`(${region})`);
      await this.page.locator(`.ant-select-item-option[title$="(${region})"]`).waitFor();
      await this.page.keyboard.press('Enter');
    }
    await dialog.getByRole('button', { name: text(this.lang, 'common.actions.save') }).click();
  }

  /** Accepts the invitation of `project`. */
  async accept(project: string): Promise<void> {
    const item = this.page.getByRole('listitem').filter({ hasText: text(this.lang, 'projects.pending.text', { project }) });
    await item.getByRole('button', { name: text(this.lang, 'projects.pending.accept') }).click();
  }

  async open(project: string): Promise<void> {
    await this.page.getByRole('link', { name: project, exact: true }).click();
  }
}
