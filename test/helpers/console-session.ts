/**
 * A person signed in to the console in a real browser, for the console's browser tests.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Lang } from '../../console/e2e/locale.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { personContext } from './browser.ts';

/**
 * `username` signed in through the console's sign-in page at `base`, in a new browser context as a
 * person's (personContext, 30 s for each step; added to `contexts` for the file's afterAll to close):
 * the page once it has left the sign-in page. The password is the one provisionProject gives.
 */
export async function signedInPage(
  browser: Browser,
  base: string,
  username: string,
  options: { width: number; touch: boolean; lang: Lang; pageErrors: string[]; contexts: BrowserContext[] },
): Promise<Page> {
  const { width, touch, lang, pageErrors, contexts } = options;
  const context = await personContext(browser, { width, touch, locale: lang, pageErrors, timeout: 30_000 });
  contexts.push(context);
  const page = await context.newPage();
  const signIn = new SignInPage(page, lang);
  await signIn.open(base);
  await signIn.signIn(username, 'long enough pw');
  await page.waitForURL((u) => !u.pathname.includes('sign-in'));
  return page;
}
