// lanes: sqlite
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../../../src/services.ts';
import { type FileData, fixture, pageImage, settled, storedFiles, upload } from '../../helpers/files.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';

/**
 * The renderer under stress: a page that takes longer than FILE_RENDER_PAGE_TIMEOUT_MS stops the
 * renderer's child and fails its file, and the next file renders in a fresh child; a server that
 * stops while rendering leaves the file for the next one to finish.
 */
const TIMEOUT_MS = 5000;
const t = useTestServer({ FILE_RENDER_PAGE_TIMEOUT_MS: String(TIMEOUT_MS) });

let p: HistoryProject;

beforeAll(async () => {
  p = await historyProject(t.server);
});

const data = (res: { json(): unknown }) => (res.json() as { data: FileData }).data;

describe('the per-page watchdog', () => {
  it('fails a file whose page takes too long, and keeps rendering the files after it', async () => {
    // slow.pdf opens at once; its one page would take pdf.js minutes (4,000 page-sized shaded triangles).
    const slow = await upload(t.server, p.appId, p.sales.token, { filename: 'slow.pdf', bytes: fixture('slow.pdf') });
    expect(slow.json()).toMatchObject({ status: 1, data: { pageCount: 1 } });
    // Queued behind it while it runs.
    const next = await upload(t.server, p.appId, p.sales.token, { filename: 'deck.pdf', bytes: fixture('deck.pdf') });
    expect(next.json()).toMatchObject({ status: 1 });

    const failed = await settled(t.server, p.appId, p.sales.token, data(slow).id);
    expect(failed).toMatchObject({ status: 'failed', renderedPages: 0 });
    expect(failed.failure).toContain(`longer than ${TIMEOUT_MS} ms`);
    expect((await pageImage(t.server, p.appId, p.sales.token, failed.id, 1)).json()).toMatchObject({ status: 0, code: 'page_not_found' });
    // Its original is kept; no page of it is.
    const kept = storedFiles(t.server.ctx.config.dataDir).filter((f) => f.startsWith(`${p.appId}/${failed.id}/`));
    expect(kept.map((f) => f.split('/').pop())).toEqual(['original.pdf']);

    expect(await settled(t.server, p.appId, p.sales.token, data(next).id)).toMatchObject({ status: 'ready', renderedPages: 3 });
    const after = await upload(t.server, p.appId, p.sales.token, { filename: 'photo.png', bytes: fixture('photo.png') });
    expect(await settled(t.server, p.appId, p.sales.token, data(after).id)).toMatchObject({ status: 'ready', renderedPages: 1 });
  });
});

describe('a server that starts', () => {
  it('removes uploads a crashed process left half-received an hour ago, and no others', async () => {
    const incoming = path.join(t.server.ctx.config.dataDir, 'files', '.incoming');
    fs.mkdirSync(incoming, { recursive: true });
    const stale = path.join(incoming, 'stale.part');
    const fresh = path.join(incoming, 'fresh.part');
    fs.writeFileSync(stale, 'half an upload');
    fs.writeFileSync(fresh, 'an upload arriving now');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(stale, twoHoursAgo, twoHoursAgo);
    const next = createServices(t.server.ctx);
    try {
      await next.files.uploads.sweepIncoming();
      expect(fs.existsSync(stale)).toBe(false);
      expect(fs.existsSync(fresh)).toBe(true);
    } finally {
      await next.jobs.stop();
      fs.rmSync(fresh);
    }
  });
});

describe('a server that stops while rendering', () => {
  it('leaves the file processing, and the next server renders it to the end', async () => {
    const res = await upload(t.server, p.appId, p.sales.token, { filename: 'deck.pdf', bytes: fixture('deck.pdf') });
    const id = data(res).id;
    // Stop rendering at once (the upload has been answered; its first page takes longer than this).
    await t.server.services.jobs.stop();
    const left = await t.server.ctx.database.db
      .selectFrom('files')
      .selectAll()
      .where('app_id', '=', p.appId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(left).toMatchObject({ status: 'processing', lease_until: null });
    expect(left.rendered_pages).toBeLessThan(3);

    // A new process's services on the same database and DATA_DIR take it up when they start.
    const next = createServices(t.server.ctx);
    try {
      next.jobs.start(['file-render']);
      const sales = await next.access.membership(p.appId, p.sales.id);
      const deadline = Date.now() + 60_000;
      let file = await next.files.uploads.get(sales, id);
      while (file.status === 'processing' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        file = await next.files.uploads.get(sales, id);
      }
      expect(file).toMatchObject({ status: 'ready', renderedPages: 3 });
      for (let n = 1; n <= 3; n++) {
        const image = await next.files.uploads.page(sales, { fileId: id, n, width: 'phone' });
        expect(image.notModified).toBe(false);
        if (!image.notModified) image.body.destroy();
      }
    } finally {
      await next.jobs.stop();
    }
  });

  it('a file held by a process that died is taken up once its lease runs out, from the page it reached', async () => {
    const db = t.server.ctx.database.db;
    const file = await db
      .selectFrom('files')
      .selectAll()
      .where('app_id', '=', p.appId)
      .where('status', '=', 'ready')
      .where('page_count', '=', 3)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(file.page_count).toBe(3);
    const firstPage = await db
      .selectFrom('file_pages')
      .selectAll()
      .where('app_id', '=', p.appId)
      .where('file_id', '=', file.id)
      .where('page', '=', 1)
      .executeTakeFirstOrThrow();
    // As a process that died after the first page leaves it: processing, held for another minute.
    await db.deleteFrom('file_pages').where('app_id', '=', p.appId).where('file_id', '=', file.id).where('page', '>', 1).execute();
    await db
      .updateTable('files')
      .set({ status: 'processing', rendered_pages: 1, lease_until: Date.now() + 60_000 })
      .where('app_id', '=', p.appId)
      .where('id', '=', file.id)
      .execute();

    const next = createServices(t.server.ctx);
    try {
      next.jobs.start(['file-render']);
      const sales = await next.access.membership(p.appId, p.sales.id);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await next.files.uploads.get(sales, file.id)).toMatchObject({ status: 'processing', renderedPages: 1 });

      // The lease runs out: the next look for work takes the file up.
      await db
        .updateTable('files')
        .set({ lease_until: Date.now() - 1 })
        .where('app_id', '=', p.appId)
        .where('id', '=', file.id)
        .execute();
      const deadline = Date.now() + 60_000;
      let now = await next.files.uploads.get(sales, file.id);
      while (now.status === 'processing' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        now = await next.files.uploads.get(sales, file.id);
      }
      expect(now).toMatchObject({ status: 'ready', renderedPages: 3 });
      // Page 1 was not rendered again.
      const pages = await db
        .selectFrom('file_pages')
        .selectAll()
        .where('app_id', '=', p.appId)
        .where('file_id', '=', file.id)
        .orderBy('page')
        .execute();
      expect(pages.map((r) => r.page)).toEqual([1, 2, 3]);
      expect(pages[0]).toEqual(firstPage);
    } finally {
      await next.jobs.stop();
    }
  });
});
