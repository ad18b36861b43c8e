import type { Locator, Page } from 'playwright-core';
import { type Lang, buttonName, text } from '../locale.ts';

/** /console/p/:appId/members */
export class MembersPage {
  readonly heading: Locator;
  constructor(
    readonly page: Page,
    readonly lang: Lang = 'en-US',
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: text(lang, 'members.title') });
  }

  async add(userId: number): Promise<void> {
    await this.page.getByRole('button', { name: buttonName(this.lang, 'members.addById') }).click();
    const dialog = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'members.addTitle') });
    await dialog.getByLabel(text(this.lang, 'members.userId')).fill(String(userId));
    await dialog.getByRole('button', { name: text(this.lang, 'common.actions.save') }).click();
    await this.page.getByText(text(this.lang, 'members.added')).waitFor();
  }

  /** Invites `email` with `role`; answers the link the console shows to copy (and closes its dialog). */
  async invite(email: string, role: 'Sales' | 'Admin' = 'Sales', mailed = false): Promise<string> {
    await this.page.getByRole('button', { name: buttonName(this.lang, 'members.invite') }).click();
    const dialog = this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'members.inviteTitle') });
    await dialog.getByLabel(text(this.lang, 'members.email')).fill(email);
    if (role !== 'Sales') {
      await dialog.getByLabel(text(this.lang, 'members.role')).click({ force: true });
      await this.page
        .locator('.ant-select-dropdown:visible .ant-select-item-option')
        .filter({ hasText: text(this.lang, `members.roles.${role}`) })
        .first()
        .click();
    }
    await dialog.getByRole('button', { name: text(this.lang, mailed ? 'members.send' : 'members.create') }).click();
    const link = this.linkDialog().getByLabel(text(this.lang, 'members.link'));
    await link.waitFor();
    return link.inputValue();
  }

  linkDialog(): Locator {
    return this.page.getByRole('dialog').filter({ hasText: text(this.lang, 'members.linkTitle') });
  }

  async closeLink(): Promise<void> {
    await this.linkDialog()
      .getByRole('button', { name: buttonName(this.lang, 'members.done') })
      .click();
    await this.linkDialog().waitFor({ state: 'hidden' });
  }

  /** A pending invitation of the list. */
  invitation(email: string): Locator {
    return this.page
      .getByRole('region', { name: text(this.lang, 'members.invitations') })
      .getByRole('listitem')
      .filter({ hasText: email });
  }

  async revoke(email: string): Promise<void> {
    await this.invitation(email)
      .getByRole('button', { name: text(this.lang, 'members.revoke') })
      .click();
    await this.page
      .getByRole('tooltip')
      .getByRole('button', { name: text(this.lang, 'members.revoke') })
      .click();
    await this.page.getByText(text(this.lang, 'members.revoked')).waitFor();
  }

  member(name: string): Locator {
    return this.page.getByRole('listitem').filter({ hasText: name });
  }
}
