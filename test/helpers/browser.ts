/**
 * The real browser of the browser tests and the console bench: Debian's `chromium` (or
 * `CHROMIUM_PATH`), driven by playwright-core. Headless Chromium's own user agent names it
 * HeadlessChrome, which isbot counts as a bot, so a test that plays a person sets one of these.
 */
import fs from 'node:fs';
import { type Browser, type BrowserContext, type ConsoleMessage, type Page, type Response, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A phone's Chrome. */
export const PHONE_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
/** A desktop Chrome. */
export const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** Why no browser can be launched here, or null when one can. */
export function chromiumMissing(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does), or set CHROMIUM_PATH`;
}

/**
 * Headless Chromium with nothing of its own on the network (no updates, sync or QUIC) to disturb a
 * test. `userAgent` sets the browser's own, which beacons sent while a page unloads carry (a
 * context's user agent does not reach them).
 */
export async function launchChromium(options: { userAgent?: string } = {}): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      ...(options.userAgent ? [`--user-agent=${options.userAgent}`] : []),
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A browser context as a person's: a phone (touch, its user agent, 812 px high) or a desktop (900 px
 * high) at `width`, in `locale`, with reduced motion (antd's animations off) and the CSP bypassed
 * (axe-core is injected with addScriptTag); page errors are collected in `pageErrors`.
 */
export async function personContext(
  browser: Browser,
  options: {
    width: number;
    touch: boolean;
    locale?: string;
    timezoneId?: string;
    pageErrors: string[];
    timeout?: number;
    permissions?: string[];
  },
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: options.width, height: options.touch ? 812 : 900 },
    isMobile: options.touch,
    hasTouch: options.touch,
    userAgent: options.touch ? PHONE_UA : DESKTOP_UA,
    locale: options.locale ?? 'en-US',
    timezoneId: options.timezoneId ?? 'Europe/Berlin',
    bypassCSP: true,
    reducedMotion: 'reduce',
    ...(options.permissions ? { permissions: options.permissions } : {}),
  });
  context.setDefaultTimeout(options.timeout ?? 20_000);
  context.on('page', (page) => page.on('pageerror', (err) => options.pageErrors.push(err.message)));
  return context;
}

/**
 * What a page shows in the browser's console as a problem: every answer of 400 or more (the browser
 * logs a failed request) and every console error, from now on; `stop()` ends the watch.
 */
export function watchNoise(page: Page): { failures: string[]; stop(): void } {
  const failures: string[] = [];
  const onResponse = (res: Response) => {
    if (res.status() >= 400) failures.push(`${res.status()} ${res.request().method()} ${new URL(res.url()).pathname}`);
  };
  const onConsole = (msg: ConsoleMessage) => {
    if (msg.type() === 'error') failures.push(`console: ${msg.text()}`);
  };
  page.on('response', onResponse);
  page.on('console', onConsole);
  return {
    failures,
    stop() {
      page.off('response', onResponse);
      page.off('console', onConsole);
    },
  };
}
