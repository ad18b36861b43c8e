// lanes: sqlite
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lang, text } from '../../console/e2e/locale.ts';
import { AppShell } from '../../console/e2e/pages/AppShell.ts';
import { RoomsPage } from '../../console/e2e/pages/RoomsPage.ts';
import { launchChromium, watchNoise } from '../helpers/browser.ts';
import { expectAccessible, settledShot, shot } from '../helpers/console-checks.ts';
import { signedInPage } from '../helpers/console-session.ts';
import { fixture } from '../helpers/files.ts';
import { type ProvisionedProject, provisionProject, serveOnFreePort, until, useProcessDatabase } from '../helpers/process.ts';

/**
 * Data rooms in the console, in a real browser against a real server process, at 1440 px in English
 * and at 375 px (touch) in Chinese: a member makes a room from the Data rooms page, adds a folder and
 * files of the project (inside the folder and at the root) from the picker, saves, and makes the
 * room's link; the room and a link of type 4 are stored as shown, and the link opens the room. Each
 * screen axe clean, with no failed request and no console error.
 */
const PHONE = '13700000061';
const processes = useProcessDatabase();
let base = '';
let browser: Browser;
let project: ProvisionedProject;
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];

async function api<T>(path: string): Promise<T> {
  const body = (await (await fetch(`${base}${path}`, { headers: project.auth })).json()) as { status: number; data: T };
  expect(body.status, JSON.stringify(body)).toBe(1);
  return body.data;
}

async function uploaded(name: string, as: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([fixture(name)]), as);
  const res = await fetch(`${base}/api/v1.7/app/${project.appId}/files`, { method: 'POST', headers: project.auth, body: form });
  const id = ((await res.json()) as { data: { id: string } }).data.id;
  await until(
    'the file to be rendered',
    () => api<{ status: string }>(`/api/v1.7/app/${project.appId}/file/${id}`),
    (f) => f.status === 'ready',
  );
}

beforeAll(async () => {
  base = await serveOnFreePort(processes, (b) => ({ PUBLIC_BASE_URL: b }));
  project = await provisionProject(base, processes.db.env, PHONE);
  await uploaded('deck.pdf', 'Master services agreement.pdf');
  await uploaded('photo.png', 'Site photo.png');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
});

describe('data rooms in the console', { timeout: 180_000 }, () => {
  for (const [width, touch, lang] of [
    [1440, false, 'en-US'],
    [375, true, 'zh-CN'],
  ] as const) {
    it(`at ${width} px (${lang}): a room made, a folder and files added, saved and shared`, async () => {
      const page = await signedInPage(browser, base, PHONE, { width, touch, lang: lang as Lang, pageErrors, contexts });
      const noise = watchNoise(page);
      await page.goto(`${base}/console/p/${project.appId}/home`);
      const shell = new AppShell(page, lang);
      // The header is drawn (at 375 px its menu button) before the menu is used.
      if (touch) await shell.menuButton.waitFor();
      else await page.getByRole('navigation', { name: text(lang, 'common.nav.mainMenu') }).waitFor();
      await shell.goTo('links');
      const rooms = new RoomsPage(page, lang);
      await rooms.fromLinks();
      await expectAccessible(page, `the data rooms at ${width}`);
      const name = `Acme due diligence ${width}`;
      await rooms.create(name);
      await rooms.addFolder('Contracts');
      await rooms.addFiles(['Master services agreement.pdf'], 'Contracts');
      await rooms.addFiles(['Site photo.png']);
      expect(await rooms.rows()).toEqual(['Contracts', 'Master services agreement.pdf', 'Site photo.png']);
      await rooms.save();
      await expectAccessible(page, `a room's editor at ${width}`);
      await settledShot(page, `rooms-editor-${width}`);
      const url = await rooms.share();
      expect(url).toMatch(new RegExp(`^${base}/l/[A-Za-z0-9_-]{22}$`));
      await shot(page, `rooms-shared-${width}`);

      const stored = await api<{ id: string; name: string; items: unknown[] }[]>(`/api/v1.7/app/${project.appId}/rooms`);
      const room = stored.find((r) => r.name === name);
      expect(room?.items).toMatchObject([
        { type: 'folder', name: 'Contracts', items: [{ type: 'file', name: 'Master services agreement.pdf' }] },
        { type: 'file', name: 'Site photo.png' },
      ]);
      const links = await api<{ type: number; roomId: string | null; url: string }[]>(`/api/v1.7/app/${project.appId}/links?with_url=1`);
      expect(links.find((l) => l.url === url)).toMatchObject({ type: 4, roomId: room?.id });
      const opened = await (await fetch(url)).text();
      expect(opened).toContain('Master services agreement.pdf');

      // The list shows it with its documents.
      await new AppShell(page, lang).goTo('links');
      await rooms.fromLinks();
      await page.getByRole('link', { name, exact: true }).waitFor();
      await settledShot(page, `rooms-list-${width}`);
      noise.stop();
      expect(noise.failures).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  }
});
