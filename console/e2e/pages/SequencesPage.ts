import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/p/:appId/sequences and a sequence's page: the list, the editor, its funnel and enrolments. */
export class SequencesPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'sequences.page.title') });
  }

  private t(key: string, values: Record<string, string | number> = {}): string {
    return text(this.lang, key, values);
  }

  /** The list's row of a sequence (its link). */
  row(name: string): Locator {
    return this.page.getByRole('row').filter({ has: this.page.getByRole('link', { name, exact: true }) });
  }

  async startNew(): Promise<void> {
    await this.page.getByRole('button', { name: buttonName(this.lang, 'sequences.page.new') }).click();
    await this.page.getByLabel(this.t('sequences.editor.name')).waitFor();
  }

  step(n: number): Locator {
    return this.page.getByRole('group', { name: this.t('sequences.step.label', { n }), exact: true });
  }

  /** Adds a step of a kind (from the "Add a step" menu). */
  async addStep(kind: 'email' | 'manual_email' | 'call' | 'task'): Promise<void> {
    await this.page.getByRole('button', { name: buttonName(this.lang, 'sequences.editor.addStep') }).click();
    // The open drop-down's item: the main menu's items are menu items too ("Calls", "Tasks").
    await this.page
      .locator('.ant-dropdown:not(.ant-dropdown-hidden)')
      .getByRole('menuitem', { name: this.t(`sequences.types.${kind}`), exact: true })
      .click();
  }

  /** Fills step n: its wait, its subject or title, and an e-mail's body. */
  async fillStep(n: number, values: { wait?: number; title: string; html?: string }): Promise<void> {
    const step = this.step(n);
    if (values.wait !== undefined) await step.getByLabel(this.t('sequences.step.waitOf', { n })).fill(String(values.wait));
    await step.getByRole('textbox').first().fill(values.title);
    if (values.html !== undefined) await step.getByRole('textbox').nth(1).fill(values.html);
  }

  async create(): Promise<void> {
    await this.page.getByRole('button', { name: buttonName(this.lang, 'sequences.editor.create') }).click();
  }

  tab(which: 'steps' | 'funnel' | 'enrollments'): Locator {
    return this.page.getByRole('tab', { name: this.t(`sequences.tabs.${which}`) });
  }

  /** A figure of the funnel's head (enrolled, active, paused, finished, exited). */
  funnelFigure(which: 'enrolled' | 'active' | 'paused' | 'finished' | 'exited'): Locator {
    return this.page
      .locator('.ant-statistic')
      .filter({ has: this.page.getByText(this.t(`sequences.funnel.${which}`), { exact: true }) })
      .locator('.ant-statistic-content-value');
  }

  /** A step's figure in the funnel (its table row on a wide screen, its block on a phone). */
  stepFigure(step: number, which: 'reached' | 'sent' | 'opened' | 'clicked' | 'replied' | 'tasks'): Locator {
    return this.page.locator(`[data-funnel-step="${step}"] [data-figure="${which}"]`);
  }
}
