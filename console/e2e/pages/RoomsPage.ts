import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/p/:appId/rooms and a room's editor: a new room, its folders and files, saved and shared. */
export class RoomsPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'rooms.page.title') });
  }

  /** From the Links page, its Data rooms button. */
  async fromLinks(): Promise<void> {
    await this.page.getByRole('link', { name: buttonName(this.lang, 'links.rooms') }).click();
    await this.heading.waitFor();
  }

  private button(key: string, values: Record<string, string | number> = {}): Locator {
    return this.page.getByRole('button', { name: buttonName(this.lang, key, values) });
  }

  /** Makes a room from the list: its name, then its editor opens. */
  async create(name: string): Promise<void> {
    await this.button('rooms.page.new').click();
    const dialog = this.page.getByRole('dialog', { name: text(this.lang, 'rooms.create.title') });
    await dialog.getByLabel(text(this.lang, 'rooms.create.name')).fill(name);
    await dialog.getByRole('button', { name: buttonName(this.lang, 'rooms.create.create') }).click();
    await this.page.getByRole('heading', { level: 1, name }).waitFor();
  }

  /** A folder at the root, named. */
  async addFolder(name: string): Promise<void> {
    const before = await this.folderNames().count();
    await this.button('rooms.editor.addFolder').click();
    await this.folderNames().nth(before).fill(name);
  }

  folderNames(): Locator {
    return this.page.getByRole('textbox', { name: text(this.lang, 'rooms.editor.folderName'), exact: true });
  }

  /** Files chosen in the picker, added at the root, or inside the folder named `inside` (from its actions). */
  async addFiles(names: string[], inside?: string): Promise<void> {
    if (inside === undefined) await this.button('rooms.editor.addFiles').click();
    else {
      await this.page.getByRole('button', { name: text(this.lang, 'rooms.editor.actions', { name: inside }) }).click();
      await this.page.getByRole('menuitem', { name: text(this.lang, 'rooms.editor.addFilesIn'), exact: true }).click();
    }
    const dialog = this.page.getByRole('dialog', { name: text(this.lang, 'rooms.picker.title') });
    await dialog.getByRole('combobox').click();
    // antd draws each option as a div titled with its label (its role="option" twin is for screen readers, hidden).
    for (const name of names) await this.page.locator(`.ant-select-item-option[title="${name.replace(/"/g, '\\"')}"]`).click();
    // Away from the open list (a tap on the dialog's title closes it), then Add.
    await dialog.getByText(text(this.lang, 'rooms.picker.title'), { exact: true }).click();
    await dialog.getByRole('button', { name: buttonName(this.lang, 'rooms.picker.add') }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  /** The tree's rows as a person reads them, folder names included. */
  async rows(): Promise<string[]> {
    return this.page.locator('[data-room-row]').evaluateAll((rows) =>
      rows.map((r) => {
        const input = r.querySelector('input');
        return (input ? input.value : (r.querySelector('.ant-typography')?.textContent ?? '')).trim();
      }),
    );
  }

  async save(): Promise<void> {
    await this.button('rooms.editor.save').click();
    await this.page.getByText(text(this.lang, 'rooms.editor.saved'), { exact: true }).waitFor();
  }

  /** Makes the room's link: its address as shown. */
  async share(): Promise<string> {
    await this.button('rooms.share.make').click();
    const url = this.page.locator('[data-share-url]');
    await url.waitFor();
    return (await url.innerText()).trim();
  }
}
