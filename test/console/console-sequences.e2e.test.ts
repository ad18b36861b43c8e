// lanes: sqlite
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lang, buttonName, text } from '../../console/e2e/locale.ts';
import { AppShell } from '../../console/e2e/pages/AppShell.ts';
import { CustomerPage } from '../../console/e2e/pages/CustomerPage.ts';
import { HomePage } from '../../console/e2e/pages/HomePage.ts';
import { SequencesPage } from '../../console/e2e/pages/SequencesPage.ts';
import { launchChromium, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, settledShot, shot } from '../helpers/console-checks.ts';
import { signedInPage } from '../helpers/console-session.ts';
import { HOUR, ago, customerEvent } from '../helpers/histories.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { type ProvisionedProject, provisionProject, serveOnFreePort, useProcessDatabase } from '../helpers/process.ts';

/**
 * Sequences and playbooks in a real browser against a real server process whose mail goes to an SMTP
 * server of the test's, at 1440 px in English and at 375 px (touch) in Chinese: the Master opens the
 * sending rules to every hour of every day; a salesperson creates a three-step sequence (an e-mail with
 * merge fields previewed with a real customer's values, a call, a task), enrols customers from the
 * customer list's bulk actions (the first e-mail is mailed to each), sees the enrolment on a customer's
 * page and pauses it, sees the sequence's funnel with the mails sent, then makes a playbook and runs
 * its dry run. Each screen axe clean, with no failed
 * request and no console error.
 */
const PHONE = '13700000061';
const processes = useProcessDatabase();
const box = await startMailbox();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];
const POLL = { timeout: 20_000 };

const RUNS = {
  1440: { lang: 'en-US', touch: false, tag: 'Desk', customers: ['Ada Desk', 'Ben Desk'] },
  375: { lang: 'zh-CN', touch: true, tag: 'Phone', customers: ['Cai Phone', 'Dan Phone'] },
} as const;

/** A visit of the customer's to a page of the project's site, some hours ago. */
const visit = (id: string, customerId: string, hoursAgo: number, url: string) => ({
  event_type: 'create',
  domainType: 'BehaviourLog',
  domainId: id,
  body: { customerId, action: 'access_site', when: ago(hoursAgo * HOUR), content: JSON.stringify({ web_access_log_id: id, url }) },
});
const idOf = (name: string) => name.toLowerCase().replace(' ', '-');

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { headers: project.auth });
  const body = (await res.json()) as { code?: number; status?: number; data: T };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.data;
}

beforeAll(async () => {
  base = await serveOnFreePort(processes, (own) => ({
    PUBLIC_BASE_URL: own,
    SMTP_URL: `smtp://127.0.0.1:${box.port}`,
    SMTP_FROM: 'Sales <sales@shop.example>',
    TIME_ZONE: 'UTC',
  }));
  project = await provisionProject(base, processes.db.env, PHONE);
  const people = Object.values(RUNS).flatMap((r) => r.customers);
  // Each run's first customer looked at the pricing twice this week; its second one at the team page.
  const visits = Object.values(RUNS).flatMap((r) => [
    visit(`v-${idOf(r.customers[0])}-1`, idOf(r.customers[0]), 30, 'https://shop.example/pricing'),
    visit(`v-${idOf(r.customers[0])}-2`, idOf(r.customers[0]), 5, 'https://shop.example/pricing?plan=team'),
    visit(`v-${idOf(r.customers[1])}-1`, idOf(r.customers[1]), 4, 'https://shop.example/about'),
  ]);
  const res = await project.ingest([
    ...people.map((name) =>
      customerEvent(idOf(name), { name, email: `${name.toLowerCase().replace(' ', '.')}@example.com`, company: 'Northwind Trading' }),
    ),
    ...visits,
  ]);
  expect(await res.json()).toMatchObject({ status: 1 });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await box.close();
});

/** The mails delivered to a customer's address. */
const mailsTo = (name: string) => box.inbox.filter((m) => m.to.includes(`${name.toLowerCase().replace(' ', '.')}@example.com`));

const signedIn = (width: number, touch: boolean, lang: Lang) =>
  signedInPage(browser, base, PHONE, { width, touch, lang, pageErrors, contexts });

describe('sequences and playbooks in the console', { timeout: 240_000 }, () => {
  for (const width of [1440, 375] as const) {
    const run = RUNS[width];
    const lang = run.lang;
    const name = `Trial follow-up ${run.tag}`;

    it(`at ${width} px (${lang}): a three-step sequence, customers enrolled from the list, paused on a page, its funnel; a playbook's dry run`, async () => {
      const page = await signedIn(width, run.touch, lang);
      const noise = watchNoise(page);
      const t = (key: string, values: Record<string, string | number> = {}) => text(lang, key, values);

      // The project's home, then the Sequences page from the menu; a new sequence of an e-mail, a call and a task.
      await new HomePage(page, lang).open(base, project.appId);
      await new AppShell(page, lang).goTo('sequences');
      const sequences = new SequencesPage(page, lang);
      await sequences.heading.waitFor();
      await expectAccessible(page, `the sequences at ${width}`);
      if (width === 1440) {
        // The Master opens the sending rules to every hour of every day, so the first e-mail goes now.
        const rules = page.locator('#send-settings');
        await rules.getByLabel(t('sequences.settings.from')).fill('00:00');
        await rules.getByLabel(t('sequences.settings.to')).fill('23:59');
        for (const day of [6, 7]) await rules.getByRole('checkbox', { name: t(`sequences.weekdays.${day}`) }).check();
        await rules.getByRole('button', { name: buttonName(lang, 'sequences.settings.save') }).click();
        await page.getByText(t('sequences.settings.saved'), { exact: true }).waitFor();
        const saved = await api<{ windowStart: string; windowEnd: string; days: number[] }>(
          `/api/v1.7/app/${project.appId}/sequence-settings`,
        );
        expect(saved).toMatchObject({ windowStart: '00:00', windowEnd: '23:59', days: [1, 2, 3, 4, 5, 6, 7] });
      }
      await settledShot(page, `sequences-empty-${width}`);
      await sequences.startNew();
      await page.getByLabel(t('sequences.editor.name')).fill(name);
      await sequences.fillStep(1, { title: 'The deck we talked about', html: '<p>Hi {{name}} of {{company}}, here is the deck.</p>' });
      await sequences.addStep('call');
      await sequences.fillStep(2, { wait: 2, title: 'Call about the deck' });
      await sequences.addStep('task');
      await sequences.fillStep(3, { wait: 3, title: 'Send a handwritten card' });
      await expect.poll(() => sequences.step(3).innerText(), POLL).toContain(t('sequences.step.day', { day: 5 }));

      // The first mail previewed with a real customer's values.
      await sequences
        .step(1)
        .getByRole('button', { name: buttonName(lang, 'sequences.step.preview') })
        .click();
      const dialog = page.getByRole('dialog', { name: t('sequences.preview.title') });
      await dialog.getByRole('combobox').click();
      await page.keyboard.type(run.customers[0].split(' ')[0] ?? '');
      await page.locator('.ant-select-item-option', { hasText: run.customers[0] }).click();
      await expect.poll(() => dialog.getByTestId('sequence-preview-subject').innerText(), POLL).toContain('The deck we talked about');
      const mail = dialog.frameLocator(`iframe[title="${t('sequences.preview.frame')}"]`).locator('body');
      await expect.poll(() => mail.innerText(), POLL).toContain(`Hi ${run.customers[0]} of Northwind Trading, here is the deck.`);
      await expectAccessible(page, `a step's preview at ${width}`);
      await shot(page, `sequences-preview-${width}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await expectAccessible(page, `the sequence editor at ${width}`);
      await shot(page, `sequences-editor-${width}`);
      await sequences.create();
      await page.getByText(t('sequences.editor.created'), { exact: true }).waitFor();
      await page.waitForURL((u) => /\/sequences\/[^/]+$/.test(u.pathname) && !u.pathname.endsWith('/new'));
      const sequenceId = new URL(page.url()).pathname.split('/').pop() ?? '';
      const stored = await api<{ steps: { type: string }[]; version: number }>(`/api/v1.7/app/${project.appId}/sequence/${sequenceId}`);
      expect(stored.steps.map((s) => s.type)).toEqual(['email', 'call', 'task']);

      // Enrolled from the customer list's bulk actions.
      await new AppShell(page, lang).goTo('customers');
      for (const who of run.customers) await page.getByRole('checkbox', { name: t('customers.bulk.pickRow', { name: who }) }).click();
      const toolbar = page.getByRole('toolbar', { name: t('customers.bulk.toolbar') });
      await toolbar.getByRole('button', { name: buttonName(lang, 'customers.bulk.actions.enroll') }).click();
      const pick = page.getByRole('dialog').filter({ has: page.getByRole('combobox', { name: t('customers.bulk.pick.enroll.label') }) });
      await pick.getByRole('combobox').click();
      await page.locator('.ant-select-item-option', { hasText: name }).click();
      await expectAccessible(page, `enrolling from the list at ${width}`);
      await shot(page, `sequences-enrol-${width}`);
      await pick.getByRole('button', { name: buttonName(lang, 'customers.bulk.pick.ok') }).click();
      await page.locator('.ant-drawer-content').getByText(t('customers.bulk.progress.status.done')).waitFor({ timeout: 30_000 });
      await page.keyboard.press('Escape');

      // The first step's e-mail is mailed to each, their own values in it, the subject as written.
      for (const who of run.customers) {
        await expect.poll(() => mailsTo(who).length, { timeout: 30_000 }).toBe(1);
        const mail = mailsTo(who)[0]?.mail;
        expect(mail?.subject).toBe('The deck we talked about');
        expect(mail?.text).toContain(`Hi ${who} of Northwind Trading, here is the deck.`);
      }

      // The customer's page: the enrolment, active, then paused.
      const detail = new CustomerPage(page, lang);
      await page.getByRole('link', { name: run.customers[0], exact: true }).first().click();
      await detail.heading(run.customers[0]).waitFor();
      const card = page.locator('[data-enrollments]');
      await card.getByRole('link', { name }).waitFor(POLL);
      await card.getByText(t('sequences.states.active'), { exact: true }).waitFor();
      await card.getByText(t('sequences.customer.nextStepDue', { n: 2 })).waitFor(POLL);
      // The e-mail in the customer's timeline, by its subject.
      await page.getByText(t('customer.actions.mail_sent', { subject: 'The deck we talked about' }), { exact: true }).waitFor(POLL);
      await card.getByRole('button', { name: t('sequences.enrollment.pauseOf', { who: name }) }).click();
      await card.getByText(t('sequences.states.paused'), { exact: true }).waitFor(POLL);
      await expectAccessible(page, `a customer's enrolments at ${width}`);
      await shot(page, `sequences-customer-${width}`);

      // The funnel: two enrolled, one paused.
      await card.getByRole('link', { name }).click();
      await sequences.tab('funnel').click();
      await expect.poll(() => sequences.funnelFigure('enrolled').innerText(), POLL).toBe('2');
      await expect.poll(() => sequences.funnelFigure('paused').innerText(), POLL).toBe('1');
      await expect.poll(() => sequences.stepFigure(0, 'sent').innerText(), POLL).toMatch(/^2\b/);
      expect(await sequences.stepFigure(1, 'reached').innerText()).toBe('0');
      await expectAccessible(page, `the funnel at ${width}`);
      await shot(page, `sequences-funnel-${width}`);
      await sequences.tab('enrollments').click();
      await page.getByRole('link', { name: run.customers[1] }).waitFor(POLL);
      await expectAccessible(page, `the sequence's customers at ${width}`);
      await shot(page, `sequences-enrollments-${width}`);

      // The list counts them by state.
      await new AppShell(page, lang).goTo('sequences');
      await expect.poll(() => sequences.row(name).innerText(), POLL).toMatch(/3[\s\S]*1[\s\S]*1/);
      await settledShot(page, `sequences-list-${width}`);

      // A playbook: a visit to the pricing page → a call task; its dry run finds who visited it.
      await page.getByRole('button', { name: buttonName(lang, 'sequences.page.playbooks') }).click();
      await page.getByRole('heading', { level: 1, name: t('playbooks.page.title') }).waitFor();
      await page.getByRole('button', { name: buttonName(lang, 'playbooks.page.new') }).click();
      await page.getByLabel(t('playbooks.editor.name')).fill(`Pricing visited ${run.tag}`);
      await page
        .locator('.ant-select')
        .filter({ has: page.getByRole('combobox', { name: t('playbooks.trigger.kind') }) })
        .click();
      await page.locator('.ant-select-item-option', { hasText: t('playbooks.kinds.site_visit') }).click();
      await page.getByLabel(t('playbooks.trigger.url')).fill('/pricing');
      await page.getByLabel(t('playbooks.actions.taskTitle')).fill('Call: they looked at the pricing');
      await page.getByRole('button', { name: buttonName(lang, 'playbooks.editor.dryRun') }).click();
      const result = page.locator('[data-dry-run]');
      await result.getByText(t('playbooks.dryRun.fired')).waitFor(POLL);
      await expect.poll(() => result.getAttribute('aria-busy'), POLL).toBe('false');
      expect(await result.innerText()).toContain('/pricing');
      // Each run's first customer (twice on the pricing, once counted), not the second (the team page).
      await result.getByRole('link', { name: run.customers[0] }).waitFor(POLL);
      expect(await result.getByRole('link', { name: RUNS[width === 1440 ? 375 : 1440].customers[0] }).count()).toBe(1);
      expect(await result.getByRole('link', { name: run.customers[1] }).count()).toBe(0);
      await expectAccessible(page, `a playbook's dry run at ${width}`);
      await shot(page, `playbooks-dry-run-${width}`);
      await page.getByRole('button', { name: buttonName(lang, 'playbooks.editor.save') }).click();
      await page.getByText(t('playbooks.editor.saved'), { exact: true }).waitFor();
      const playbooks = await api<{ name: string; trigger: { kind: string; conditions: { url?: string } }; actions: { type: string }[] }[]>(
        `/api/v1.7/app/${project.appId}/playbooks`,
      );
      const saved = playbooks.find((p) => p.name === `Pricing visited ${run.tag}`);
      expect(saved?.trigger).toMatchObject({ kind: 'site_visit', conditions: { url: '/pricing' } });
      expect(saved?.actions.map((a) => a.type)).toEqual(['create_task']);

      // The playbooks, on and with their trigger.
      await page.getByRole('link', { name: t('playbooks.page.back') }).click();
      await page.getByRole('heading', { level: 1, name: t('playbooks.page.title') }).waitFor();
      await page.getByRole('link', { name: `Pricing visited ${run.tag}` }).waitFor();
      await expectAccessible(page, `the playbooks at ${width}`);
      await settledShot(page, `playbooks-list-${width}`);

      noise.stop();
      expect(noise.failures).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  }
});
