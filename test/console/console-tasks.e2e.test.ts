// lanes: sqlite
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lang, text } from '../../console/e2e/locale.ts';
import { AppShell } from '../../console/e2e/pages/AppShell.ts';
import { CustomerPage } from '../../console/e2e/pages/CustomerPage.ts';
import { TasksPage } from '../../console/e2e/pages/TasksPage.ts';
import { launchChromium, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, settledShot, shot } from '../helpers/console-checks.ts';
import { signedInPage } from '../helpers/console-session.ts';
import { customerEvent } from '../helpers/histories.ts';
import { type ProvisionedProject, provisionProject, registerByEmail, serveOnFreePort, useProcessDatabase } from '../helpers/process.ts';

/**
 * Notes, tasks and logged calls in a real browser against a real server process, at 1440 px in
 * English and at 375 px (touch) in Chinese: on a customer's page the owner writes a note mentioning
 * a colleague (picked from the list @ opens), adds a task due today, finds it on the Tasks page under
 * "today", ticks it off, logs a call with a note, and sees the call, the note and the done task in
 * the customer's timeline. Each screen axe clean, with no failed request and no console error.
 */
const PHONE = '13700000051';
const PASSWORD = 'a long enough password';
const COLLEAGUE = { email: 'cole@tasks.example', nickname: 'Cole Colleague', password: PASSWORD };
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
let colleagueId = 0;
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];
/** The machine is shared: a list may take a while to come. */
const POLL = { timeout: 20_000 };

const CUSTOMERS = {
  1440: { id: 'tk-desk', name: 'Dana Desk', lang: 'en-US' },
  375: { id: 'tk-phone', name: 'Pia Phone', lang: 'zh-CN' },
} as const;

async function api<T>(path: string, init: { method?: string; token?: string } = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: init.token ? { authorization: `Bearer ${init.token}` } : project.auth,
  });
  const body = (await res.json()) as { status: number; data: T };
  expect(body.status, JSON.stringify(body)).toBe(1);
  return body.data;
}

beforeAll(async () => {
  base = await serveOnFreePort(processes);
  project = await provisionProject(base, processes.db.env, PHONE);
  // A colleague, an Admin of the project: one who may see every customer, so may be mentioned.
  const colleague = await registerByEmail(base, processes.db.env, COLLEAGUE);
  colleagueId = colleague.id;
  await fetch(`${base}/api/v1.7/app/${project.appId}/members`, {
    method: 'POST',
    headers: { ...project.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ svc_user_id: colleagueId, role: 'Admin' }),
  });
  await api(`/api/v1.7/user/membership/${project.appId}/accept`, { method: 'POST', token: colleague.token });
  const res = await project.ingest(Object.values(CUSTOMERS).map((c) => customerEvent(c.id, { name: c.name })));
  expect(await res.json()).toMatchObject({ status: 1 });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

const signedIn = (width: number, touch: boolean, lang: Lang) =>
  signedInPage(browser, base, PHONE, { width, touch, lang, pageErrors, contexts });

describe('notes, tasks and logged calls in the console', { timeout: 180_000 }, () => {
  for (const [width, touch] of [
    [1440, false],
    [375, true],
  ] as const) {
    const customer = CUSTOMERS[width];
    const lang = customer.lang;
    const title = `Call ${customer.name} back about pricing`;

    it(`at ${width} px (${lang}): a note mentioning a colleague, a task due today, ticked off on the Tasks page, a call logged`, async () => {
      const page = await signedIn(width, touch, lang);
      const noise = watchNoise(page);
      const detail = new CustomerPage(page, lang);
      await detail.open(base, project.appId, customer.id);
      await detail.heading(customer.name).waitFor();

      // A note mentioning the colleague, picked from the list @ opens, with a link.
      await detail.writeNote('Pricing sent. ', COLLEAGUE.nickname, 'please follow up: https://example.com/offer');
      const note = detail.note('Pricing sent.');
      await note.waitFor();
      await expect.poll(() => note.locator('[data-mention]').innerText(), POLL).toBe(`@${COLLEAGUE.nickname}`);
      expect(await note.getByRole('link', { name: 'https://example.com/offer' }).getAttribute('href')).toBe('https://example.com/offer');
      const notes = await api<{ content: string; mentions: number[] }[]>(`/api/v1.7/app/${project.appId}/customer/${customer.id}/notes`);
      expect(notes[0]?.mentions).toEqual([colleagueId]);
      expect(notes[0]?.content).toBe(
        `Pricing sent. @[${COLLEAGUE.nickname}](member:${colleagueId}) please follow up: https://example.com/offer`,
      );

      // A task, due today as proposed, for the user.
      await detail.addTask(title);
      await detail.task(title).waitFor();
      await expectAccessible(page, `the customer's tasks and notes at ${width}`);
      await settledShot(page, `tasks-customer-${width}`);

      // The Tasks page, from the menu: under "today", linking to the customer.
      await new AppShell(page, lang).goTo('tasks');
      const tasks = new TasksPage(page, lang);
      await tasks.heading.waitFor();
      await tasks.due('today');
      await page.waitForURL((u) => u.searchParams.get('due') === 'today');
      await tasks.task(title).waitFor();
      await expect.poll(() => tasks.customerLink(title, customer.name).count(), POLL).toBe(1);
      await expectAccessible(page, `the tasks due today at ${width}`);
      await settledShot(page, `tasks-today-${width}`);

      // Ticked off: it leaves the open tasks, and is among the done ones.
      await tasks.task(title).click();
      await page.getByText(text(lang, 'tasks.markedDone', { title }), { exact: true }).waitFor();
      await tasks.empty('today').waitFor();
      await expectAccessible(page, `nothing left today at ${width}`);
      await settledShot(page, `tasks-empty-${width}`);
      await tasks.status('done');
      await expect.poll(() => tasks.task(title).isChecked(), POLL).toBe(true);
      const done = await api<{ title: string; status: string }[]>(
        `/api/v1.7/app/${project.appId}/tasks?customer_id=${customer.id}&status=done`,
      );
      expect(done.map((t) => t.title)).toEqual([title]);

      // Back to the customer through the row's link; a call logged with a note.
      await tasks.customerLink(title, customer.name).click();
      await detail.heading(customer.name).waitFor();
      await detail.fillCall(3, 20, 'Left a message about the offer.');
      await expectAccessible(page, `logging a call at ${width}`);
      await shot(page, `tasks-log-call-${width}`);
      await detail.saveCall();
      await page.getByText(text(lang, 'tasks.calls.logged'), { exact: true }).waitFor();

      // The timeline: the call with its length, the notes and the task, done.
      const call = detail.timelineItem('call');
      await expect
        .poll(() => call.innerText(), POLL)
        .toContain(text(lang, 'customer.callDuration', { duration: text(lang, 'customer.duration.minutes', { m: 3, s: 20 }) }));
      await expect.poll(() => detail.timelineItem('member_note').count(), POLL).toBe(2);
      await expect.poll(() => detail.timelineItem('member_note').first().innerText(), POLL).toContain('Left a message about the offer.');
      await expect.poll(() => detail.timelineItem('member_task').innerText(), POLL).toContain(text(lang, 'tasks.timeline.done'));
      await detail.note('Left a message about the offer.').getByText(text(lang, 'tasks.notes.withCall')).waitFor();
      await expectAccessible(page, `the timeline with the call, notes and task at ${width}`);
      await settledShot(page, `tasks-timeline-${width}`);

      // The other language: the panels' texts (loaded with them) come in it too.
      const other: Lang = lang === 'en-US' ? 'zh-CN' : 'en-US';
      await new AppShell(page, lang).switchLanguage(other);
      const switched = new CustomerPage(page, other);
      await switched.notes.waitFor();
      await switched.tasks.getByText(text(other, 'tasks.panel.empty'), { exact: true }).waitFor();

      noise.stop();
      expect(noise.failures).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  }
});
