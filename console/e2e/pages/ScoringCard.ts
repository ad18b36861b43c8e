import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** The Scoring card of /console/p/:appId/settings (#scoring): the rules in words, and their form for the Master and Admins. */
export class ScoringCard {
  readonly card: Locator;
  readonly rules: Locator;
  readonly editButton: Locator;
  readonly saveButton: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.card = page.getByTestId('scoring-card');
    this.rules = page.getByTestId('scoring-rules');
    this.editButton = this.card.getByRole('button', { name: buttonName(lang, 'scoring.edit') });
    this.saveButton = this.card.getByRole('button', { name: buttonName(lang, 'scoring.form.save') });
  }

  /** The settings page at the card's anchor, its rules shown. */
  async open(base: string, appId: string): Promise<void> {
    await this.page.goto(`${base}/console/p/${appId}/settings#scoring`);
    await this.rules.waitFor();
  }

  /** A rule's sentence: a behaviour's (`deck_read`, …), `halfLife` or `hot`. */
  rule(key: string): Locator {
    return this.rules.locator(`[data-rule="${key}"]`);
  }

  /** A site key page as the rules list it. */
  sitePage(prefix: string): Locator {
    return this.rules.locator(`[data-site-page="${prefix}"]`);
  }

  /** A number of the form by its label's key (`scoring.form.deck_read`, `scoring.form.hotScore`, …). */
  field(key: string): Locator {
    return this.card.getByLabel(text(this.lang, key), { exact: true });
  }

  /** The error shown under a number of the form. */
  fieldError(key: string): Locator {
    // `has` looks inside each item: the label's locator from the page, not from the card.
    const input = this.page.getByLabel(text(this.lang, key), { exact: true });
    return this.card.locator('.ant-form-item').filter({ has: input }).locator('.ant-form-item-explain-error');
  }

  async fill(key: string, value: string): Promise<void> {
    await this.field(key).fill(value);
  }

  /** Adds a key page of the website, typed into the new row. */
  async addSitePage(prefix: string): Promise<void> {
    await this.card.getByRole('button', { name: buttonName(this.lang, 'scoring.form.addPrefix') }).click();
    await this.card.getByLabel(text(this.lang, 'scoring.form.prefix'), { exact: true }).last().fill(prefix);
  }

  /** "Reset to defaults", whose confirmation lists the defaults: returns that list's text, then confirms. */
  async resetToDefaults(): Promise<string> {
    await this.card.getByRole('button', { name: buttonName(this.lang, 'scoring.form.reset') }).click();
    const defaults = this.page.getByTestId('scoring-defaults');
    await defaults.waitFor();
    const shown = await defaults.innerText();
    await this.page
      .getByRole('tooltip')
      .getByRole('button', { name: buttonName(this.lang, 'scoring.form.reset') })
      .click();
    return shown;
  }
}
