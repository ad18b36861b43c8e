/**
 * The console's first customer row: how long after navigation a salesperson on a phone sees the
 * first customer of the list. Headless Chromium (Debian's, through playwright-core) at 375 px with
 * the CPU throttled 4×, the HTTP cache emptied before each run (the session cookie kept, as for a
 * returning user), against the server and dataset of the bench run. The figure is the median of the
 * runs, from the navigation's start to the first row's name link in the page.
 */
import { PHONE_UA, chromiumMissing, launchChromium } from '../test/helpers/browser.ts';
import type { Dataset } from './scenarios.ts';

export interface FirstRowFigures {
  runsMs: number[];
  medianMs: number;
  /** The page's main-thread task time until the first row (throttled), each run: steadier than the wall time on a busy machine. */
  mainThreadMs: number[];
  medianMainThreadMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function consoleFirstRow(base: string, dataset: Dataset, runs = 5): Promise<FirstRowFigures | { skipped: string }> {
  const missing = chromiumMissing();
  if (missing) return { skipped: missing };
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({
      viewport: { width: 375, height: 812 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      userAgent: PHONE_UA,
      locale: 'en-US',
    });
    // Signed in once, through the console's own session call (its cookie then restores the session).
    const signIn = await context.request.post(`${base}/svcuser/console/session`, {
      headers: { origin: base },
      form: { username: dataset.username, password: dataset.password },
    });
    if (!signIn.ok()) throw new Error(`console sign-in failed: ${signIn.status()} ${await signIn.text()}`);
    const url = `${base}/console/p/${dataset.appId}/customers`;
    const runsMs: number[] = [];
    const mainThreadMs: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.clearBrowserCache');
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await cdp.send('Performance.enable');
      const started = Date.now();
      await page.goto(url, { waitUntil: 'commit' });
      await page.locator('main a[href*="/customers/"]').first().waitFor({ timeout: 60_000 });
      runsMs.push(Date.now() - started);
      const { metrics } = await cdp.send('Performance.getMetrics');
      mainThreadMs.push(Math.round((metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000));
      await page.close();
    }
    return { runsMs, medianMs: median(runsMs), mainThreadMs, medianMainThreadMs: median(mainThreadMs) };
  } finally {
    await browser.close();
  }
}
