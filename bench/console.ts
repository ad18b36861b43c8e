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
  /** With BENCH_CONSOLE_PROFILE set: the main thread's self time (throttled) by script over the last run, most first. */
  profile?: string;
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
    let profile: string | undefined;
    for (let i = 0; i < runs; i += 1) {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.clearBrowserCache');
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await cdp.send('Performance.enable');
      const profiling = process.env.BENCH_CONSOLE_PROFILE !== undefined && i === runs - 1;
      if (profiling) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.start');
      }
      const started = Date.now();
      await page.goto(url, { waitUntil: 'commit' });
      await page.locator('main a[href*="/customers/"]').first().waitFor({ timeout: 60_000 });
      runsMs.push(Date.now() - started);
      if (profiling) profile = selfTimeByScript((await cdp.send('Profiler.stop')).profile);
      const { metrics } = await cdp.send('Performance.getMetrics');
      mainThreadMs.push(Math.round((metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000));
      await page.close();
    }
    return { runsMs, medianMs: median(runsMs), mainThreadMs, medianMainThreadMs: median(mainThreadMs), ...(profile ? { profile } : {}) };
  } finally {
    await browser.close();
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** A CPU profile's self time summed by script (its file name), and by what the engine does outside scripts. */
function selfTimeByScript(p: CpuProfile): string {
  const urlOf = new Map(
    p.nodes.map((n) => [n.id, n.callFrame.url ? (n.callFrame.url.split('/').pop() ?? '') : `(${n.callFrame.functionName || 'native'})`]),
  );
  const byScript = new Map<string, number>();
  (p.samples ?? []).forEach((id, i) => {
    const key = urlOf.get(id) ?? '?';
    byScript.set(key, (byScript.get(key) ?? 0) + (p.timeDeltas?.[i] ?? 0) / 1000);
  });
  return [...byScript.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([k, ms]) => `${k} ${Math.round(ms)} ms`)
    .join('; ');
}
