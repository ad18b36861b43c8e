// lanes: sqlite
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lang, text } from '../../console/e2e/locale.ts';
import { HomePage } from '../../console/e2e/pages/HomePage.ts';
import { ScoringCard } from '../../console/e2e/pages/ScoringCard.ts';
import { SignInPage } from '../../console/e2e/pages/SignInPage.ts';
import { launchChromium, personContext, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, shot } from '../helpers/console-checks.ts';
import {
  type ProvisionedProject,
  freePort,
  provisionProject,
  registerByEmail,
  runCli,
  useProcessDatabase,
  waitForOk,
} from '../helpers/process.ts';

/**
 * The scoring rules on the project's settings page, in a real browser against a real server process.
 * The Master, at 1440 px in English, comes from the home page's hint to the card, edits points, the
 * hot-lead score and a site key page, saves (told that scores are recomputed), reloads and sees them
 * in words, which the API's GET confirms; a half-life out of range is refused at its field and nothing
 * changes. At 375 px (touch) in Chinese the Master resets the numbers to the defaults the confirmation
 * lists, and a Sales member reads the rules without a way to change them. Each screen axe clean.
 */
const PHONE = '13700000071';
const PASSWORD = 'a long enough password';
const SALES = { email: 'sam@scoring.example', nickname: 'Sam Sales', password: PASSWORD };
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];
const POLL = { timeout: 20_000 };

interface Scoring {
  halfLifeDays: number;
  weights: Record<string, number>;
  siteKeyPages: string[];
  hotScore: number;
}

async function scoring(): Promise<Scoring> {
  const res = await fetch(`${base}/api/v1.7/app/${project.appId}/scoring`, { headers: project.auth });
  const body = (await res.json()) as { status: number; data: Scoring };
  expect(body.status, JSON.stringify(body)).toBe(1);
  return body.data;
}

beforeAll(async () => {
  const port = await freePort();
  processes.started(runCli(['serve'], { ...processes.db.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }));
  base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/healthz`);
  project = await provisionProject(base, processes.db.env, PHONE);
  const sales = await registerByEmail(base, processes.db.env, SALES);
  const added = await fetch(`${base}/api/v1.7/app/${project.appId}/members`, {
    method: 'POST',
    headers: { ...project.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ svc_user_id: sales.id, role: 'Sales' }),
  });
  expect(await added.json()).toMatchObject({ status: 1 });
  const accepted = await fetch(`${base}/api/v1.7/user/membership/${project.appId}/accept`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sales.token}` },
  });
  expect(await accepted.json()).toMatchObject({ status: 1 });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

async function signedIn(width: number, touch: boolean, lang: Lang, username: string, password: string): Promise<Page> {
  const context = await personContext(browser, { width, touch, locale: lang, pageErrors, timeout: 30_000 });
  contexts.push(context);
  const page = await context.newPage();
  const signIn = new SignInPage(page, lang);
  await signIn.open(base);
  await signIn.signIn(username, password);
  await page.waitForURL((u) => !u.pathname.includes('sign-in'));
  return page;
}

/** The page's screenshot once antd's passing messages have gone. */
async function settledShot(page: Page, name: string): Promise<void> {
  await page.locator('.ant-message-notice').first().waitFor({ state: 'detached', timeout: 15_000 });
  await shot(page, name);
}

describe('the scoring rules in the console', { timeout: 180_000 }, () => {
  it('at 1440 px (en-US): the Master edits points, the hot-lead score and a site key page; a bad value is refused at its field', async () => {
    const lang = 'en-US';
    const page = await signedIn(1440, false, lang, PHONE, 'long enough pw');
    const noise = watchNoise(page);

    // The home page's hint (no hot lead yet) leads to the card.
    const home = new HomePage(page, lang);
    await home.open(base, project.appId);
    await home.hotLeads.getByRole('link', { name: text(lang, 'home.empty.rulesLink') }).click();
    await page.waitForURL((u) => u.pathname.endsWith('/settings') && u.hash === '#scoring');
    const card = new ScoringCard(page, lang);
    await card.rules.waitFor();
    const points = (count: number) => text(lang, 'scoring.points', { count });
    expect(await card.rule('deck_read').innerText()).toBe(text(lang, 'scoring.rules.deck_read', { share: 50, points: points(10) }));
    expect(await card.rule('halfLife').innerText()).toBe(text(lang, 'scoring.rules.halfLife', { count: 14 }));
    expect(await card.rule('hot').innerText()).toBe(text(lang, 'scoring.rules.hot', { points: points(25) }));
    await expectAccessible(page, 'the scoring rules at 1440');
    await shot(page, 'scoring-rules-1440');

    // Points, the hot-lead score and a site key page changed, saved: scores are recomputed.
    await card.editButton.click();
    await card.fill('scoring.form.deck_read', '12');
    await card.fill('scoring.form.form', '20');
    await card.fill('scoring.form.hotScore', '40');
    await card.addSitePage('https://www.Example.com/Pricing');
    await expectAccessible(page, 'the scoring form at 1440');
    await shot(page, 'scoring-edit-1440');
    await card.saveButton.click();
    await page.getByText(text(lang, 'scoring.form.saved'), { exact: true }).waitFor();
    await card.rules.waitFor();

    // After a reload, in words; and as the API answers.
    await page.reload();
    await card.rules.waitFor();
    expect(await card.rule('deck_read').innerText()).toBe(text(lang, 'scoring.rules.deck_read', { share: 50, points: points(12) }));
    expect(await card.rule('form').innerText()).toBe(text(lang, 'scoring.rules.form', { points: points(20) }));
    expect(await card.rule('hot').innerText()).toBe(text(lang, 'scoring.rules.hot', { points: points(40) }));
    await card.sitePage('example.com/pricing').waitFor();
    const stored = await scoring();
    expect(stored).toMatchObject({ hotScore: 40, siteKeyPages: ['example.com/pricing'], halfLifeDays: 14 });
    expect(stored.weights).toMatchObject({ deck_read: 12, form: 20, mail_click: 3 });
    await settledShot(page, 'scoring-saved-1440');

    // A half-life out of range: the server's refusal at the field; nothing stored.
    await card.editButton.click();
    await card.fill('scoring.form.halfLifeDays', '400');
    await card.saveButton.click();
    await expect
      .poll(() => card.fieldError('scoring.form.halfLifeDays').allInnerTexts(), POLL)
      .toContain('half_life_days must be from 1 to 365');
    expect(await card.fieldError('scoring.form.deck_read').count()).toBe(0);
    expect((await scoring()).halfLifeDays).toBe(14);
    await expectAccessible(page, 'a refused half-life at 1440');
    await shot(page, 'scoring-error-1440');

    noise.stop();
    expect(noise.failures).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('at 375 px (zh-CN): the Master resets the numbers to the defaults the confirmation lists; key pages stay', async () => {
    const lang = 'zh-CN';
    const page = await signedIn(375, true, lang, PHONE, 'long enough pw');
    const noise = watchNoise(page);
    const card = new ScoringCard(page, lang);
    await card.open(base, project.appId);
    await card.editButton.click();
    await card.field('scoring.form.deck_read').waitFor();
    await expectAccessible(page, 'the scoring form at 375');
    await shot(page, 'scoring-edit-375');
    const listed = await card.resetToDefaults();
    expect(listed).toContain(text(lang, 'scoring.rules.halfLife', { count: 14 }));
    expect(listed).toContain(text(lang, 'scoring.rules.hot', { points: text(lang, 'scoring.points', { count: 25 }) }));
    await expect.poll(() => card.field('scoring.form.deck_read').inputValue(), POLL).toBe('10');
    expect(await card.field('scoring.form.hotScore').inputValue()).toBe('25');
    await card.saveButton.click();
    await page.getByText(text(lang, 'scoring.form.saved'), { exact: true }).waitFor();
    const stored = await scoring();
    expect(stored).toMatchObject({ hotScore: 25, siteKeyPages: ['example.com/pricing'] });
    expect(stored.weights).toMatchObject({ deck_read: 10, form: 15 });
    await card.sitePage('example.com/pricing').waitFor();
    await expectAccessible(page, 'the scoring rules at 375');
    await settledShot(page, 'scoring-rules-375');
    noise.stop();
    expect(noise.failures).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  for (const [width, touch, lang] of [
    [375, true, 'zh-CN'],
    [1440, false, 'en-US'],
  ] as const) {
    it(`at ${width} px (${lang}): a Sales member reads the rules and cannot change them`, async () => {
      const page = await signedIn(width, touch, lang, SALES.email, SALES.password);
      const noise = watchNoise(page);
      const card = new ScoringCard(page, lang);
      await card.open(base, project.appId);
      await card.rule('deck_read').waitFor();
      await card.sitePage('example.com/pricing').waitFor();
      await card.card.getByText(text(lang, 'scoring.readOnly'), { exact: true }).waitFor();
      expect(await card.editButton.count()).toBe(0);
      expect(await card.card.locator('input').count()).toBe(0);
      await expectAccessible(page, `the rules as a Sales member reads them at ${width}`);
      await shot(page, `scoring-sales-${width}`);
      noise.stop();
      expect(noise.failures).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  }
});
