import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeApi {
  run(
    context: unknown,
    options: object,
  ): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }>;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core, injected into the page with addScriptTag (the page's context must bypass the CSP for it),
 * run on the whole document against WCAG 2 A and AA: the serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => (globalThis as unknown as { axe?: unknown }).axe !== undefined)))
    await page.addScriptTag({ path: axeSource });
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as { axe: AxeApi; document: unknown };
    const result = await g.axe.run(g.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
