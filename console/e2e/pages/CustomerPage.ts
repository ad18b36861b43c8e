import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/p/:appId/customers/:id: profile, its tasks and notes (and logging a call), activity and the timeline. */
export class CustomerPage {
  readonly timeline: Locator;
  readonly profile: Locator;
  readonly tasks: Locator;
  readonly notes: Locator;
  readonly noteBox: Locator;
  readonly taskForm: Locator;
  readonly callForm: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.timeline = page.getByRole('heading', { level: 2, name: text(lang, 'customer.timeline') });
    this.profile = page.getByRole('heading', { level: 2, name: text(lang, 'customer.profile') });
    this.tasks = page.locator('.ant-card').filter({ has: page.getByRole('heading', { level: 2, name: text(lang, 'tasks.panel.title') }) });
    this.notes = page.locator('.ant-card').filter({ has: page.getByRole('heading', { level: 2, name: text(lang, 'tasks.notes.title') }) });
    this.noteBox = this.notes.getByRole('textbox', { name: text(lang, 'tasks.notes.label') });
    this.taskForm = page.getByRole('dialog').filter({ hasText: text(lang, 'tasks.form.title') });
    this.callForm = page.getByRole('dialog').filter({ hasText: text(lang, 'tasks.calls.direction') });
  }

  async open(base: string, appId: string, customerId: string): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/customers/${customerId}`);
    await this.notes.waitFor();
  }

  heading(name: string): Locator {
    return this.page.getByRole('heading', { level: 1, name });
  }

  /** A timeline entry by its title (customer.actions.<key> with its values). */
  entry(key: string, values: Record<string, string> = {}): Locator {
    return this.page.getByText(text(this.lang, `customer.actions.${key}`, values), { exact: true });
  }

  /** A timeline entry (its whole item) by its title. */
  timelineItem(key: string): Locator {
    return this.page.locator('.ant-timeline-item').filter({ has: this.page.locator(`[data-behaviour="${key}"]`) });
  }

  /** Writes a note: `before`, a mention of `colleague` picked from the list @ opens, then `after`; adds it. */
  async writeNote(before: string, colleague: string, after: string): Promise<void> {
    await this.noteBox.click();
    await this.noteBox.pressSequentially(`${before}@${colleague.slice(0, 3)}`);
    // The picker's list: the member by name.
    await this.page.locator('.ant-mentions-dropdown:visible').getByText(colleague, { exact: true }).click();
    await this.noteBox.pressSequentially(after);
    await this.notes.getByRole('button', { name: buttonName(this.lang, 'tasks.notes.save') }).click();
  }

  /** A note as shown, by a piece of its text. */
  note(containing: string): Locator {
    return this.notes.locator('[data-note]').filter({ hasText: containing });
  }

  /** Opens the new-task form and adds a task of `title`, the rest as proposed (a call, due within today, for the user). */
  async addTask(title: string): Promise<void> {
    await this.tasks.getByRole('button', { name: buttonName(this.lang, 'tasks.panel.add') }).click();
    await this.taskForm.getByLabel(text(this.lang, 'tasks.form.what')).fill(title);
    await this.taskForm.getByRole('button', { name: buttonName(this.lang, 'tasks.form.add') }).click();
    await this.taskForm.waitFor({ state: 'hidden' });
  }

  /** A task of the panel: its checkbox, named by its title. */
  task(title: string): Locator {
    return this.tasks.getByRole('checkbox', { name: title });
  }

  /** Opens "Log a call" and fills it in: a call now that connected and lasted `minutes` and `seconds`, with a note. */
  async fillCall(minutes: number, seconds: number, note: string): Promise<void> {
    await this.notes.getByRole('button', { name: buttonName(this.lang, 'tasks.calls.log') }).click();
    await this.callForm.getByLabel(text(this.lang, 'tasks.calls.minutesLabel')).fill(String(minutes));
    await this.callForm.getByLabel(text(this.lang, 'tasks.calls.secondsLabel')).fill(String(seconds));
    await this.callForm.getByRole('textbox', { name: text(this.lang, 'tasks.calls.note') }).fill(note);
  }

  /** Logs the call filled in. */
  async saveCall(): Promise<void> {
    await this.callForm.getByRole('button', { name: buttonName(this.lang, 'tasks.calls.save') }).click();
    await this.callForm.waitFor({ state: 'hidden' });
  }
}
