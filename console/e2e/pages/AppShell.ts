import type { Locator, Page } from 'playwright-core';
import { type Lang, text } from '../locale.ts';

/** The header of every signed-in page: at 375 px its menu, language and sign-out sit in a drawer. */
export class AppShell {
  readonly menuButton: Locator;
  readonly liveButton: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang,
  ) {
    this.menuButton = page.getByRole('button', { name: text(lang, 'common.nav.menu'), exact: true });
    this.liveButton = page.getByRole('button', { name: text(lang, 'common.header.live') });
  }

  /** The current project, named in the header at phone width (where its switch is in the drawer). */
  currentProject(name: string): Locator {
    return this.page
      .getByRole('banner')
      .getByRole('button', { name: text(this.lang, 'common.header.currentProject', { name }), exact: true });
  }

  private async openMenuIfCollapsed(): Promise<void> {
    if (await this.menuButton.isVisible()) await this.menuButton.click();
  }

  /** Switches the language; the shell's texts are then those of `to`. */
  async switchLanguage(to: Lang): Promise<AppShell> {
    await this.openMenuIfCollapsed();
    // antd draws the radio as a button over a hidden input: the label is what a person taps.
    const radio = this.page.getByRole('radio', { name: text(this.lang, `common.languages.${to}`) });
    await this.page.locator('label').filter({ has: radio }).click();
    // The language's texts load when it is chosen: the page speaks it once its <html lang> says so.
    await this.page.locator(`html[lang="${to}"]`).waitFor({ state: 'attached' });
    const shell = new AppShell(this.page, to);
    // The drawer (if any) stays open: close it with Escape.
    await this.page.keyboard.press('Escape');
    return shell;
  }

  async goTo(
    section:
      | 'projects'
      | 'home'
      | 'customers'
      | 'tasks'
      | 'sequences'
      | 'duplicates'
      | 'members'
      | 'fields'
      | 'site'
      | 'links'
      | 'webhooks'
      | 'settings'
      | 'calls'
      | 'posts'
      | 'clients',
  ): Promise<void> {
    await this.openMenuIfCollapsed();
    await this.page
      .getByRole('navigation', { name: text(this.lang, 'common.nav.mainMenu') })
      .getByRole('link', { name: text(this.lang, `common.nav.${section}`), exact: true })
      .click();
  }
}
