/**
 * What the console's browser tests check on a page as a person sees it, and their screenshots.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousViolations } from '../../console/e2e/axe.ts';

/**
 * No serious or critical axe violation on the page as a person sees it at rest: the pointer off
 * whatever the last tap left it over (a button under it is drawn hovered), antd's entrance and leave
 * animations and the notifications' fading ended (axe reads colours as drawn).
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  await expect
    .poll(() => page.locator('[class*="-leave-active"], [class*="-enter-active"], [class*="-appear-active"]').count(), {
      timeout: 10_000,
    })
    .toBe(0);
  expect(await seriousViolations(page), what).toEqual([]);
}

/** Where the console's browser tests write their screenshots (`npm run screenshots`: docs/screenshots). */
export const SHOTS_DIR = process.env.CONSOLE_SHOTS_DIR ?? '/tmp/console-shots';

/** A full-page screenshot `name`.png of the page, without the live notifications of the moment. */
export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const notices = await page.locator('.ant-notification-notice-close').all();
  for (const close of notices) await close.click().catch(() => undefined);
  if (notices.length > 0) await page.waitForTimeout(600);
  await page.screenshot({ path: path.join(SHOTS_DIR, `${name}.png`), fullPage: true });
}

/** The page's screenshot `name` once antd's passing messages ("Task added.") have gone. */
export async function settledShot(page: Page, name: string): Promise<void> {
  await page.locator('.ant-message-notice').first().waitFor({ state: 'detached', timeout: 15_000 });
  await shot(page, name);
}
