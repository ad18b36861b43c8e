import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** /console/p/:appId/tasks: the member's tasks, their filters, ticking one off. */
export class TasksPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'tasks.page.title') });
  }

  async open(base: string, appId: string, query = ''): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/tasks${query}`);
    await this.heading.waitFor();
  }

  /** Chooses when the tasks are due: today, overdue, week or all. */
  async due(which: 'today' | 'overdue' | 'week' | 'all'): Promise<void> {
    await this.segment('tasks.filters.due', `tasks.filters.dues.${which}`);
  }

  /** Chooses open, done or all tasks. */
  async status(which: 'open' | 'done' | 'all'): Promise<void> {
    await this.segment('tasks.filters.status', `tasks.filters.statuses.${which}`);
  }

  /** antd's Segmented draws each choice as a label over a hidden radio: the label is what a person taps. */
  private async segment(group: string, option: string): Promise<void> {
    const radio = this.page.getByRole('radio', { name: text(this.lang, option), exact: true });
    await this.page
      .getByRole('radiogroup', { name: text(this.lang, group) })
      .locator('label')
      .filter({ has: radio })
      .click();
  }

  /** A task's checkbox, named by its title. */
  task(title: string): Locator {
    return this.page.getByRole('main').getByRole('checkbox', { name: title });
  }

  /** The link of a task's row to its customer. */
  customerLink(title: string, customer: string): Locator {
    return this.page
      .locator('[data-task]')
      .filter({ has: this.page.getByRole('checkbox', { name: title }) })
      .getByRole('link', { name: customer });
  }

  /** What the list says when it has no task. */
  empty(which: 'today' | 'overdue' | 'week' | 'all'): Locator {
    return this.page.getByText(text(this.lang, `tasks.page.empty.${which}`), { exact: true });
  }
}
