import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import type { AppContext } from '../../../src/context.ts';
import { LocalFileStorage } from '../../../src/lib/file-storage.ts';
import { BackgroundJobs } from '../../../src/lib/jobs.ts';
import { type OpenDocument, type PageRenderer, RenderError, type RenderedImage } from '../../../src/lib/page-renderer.ts';
import { createLogger } from '../../../src/logger.ts';
import type { Actor } from '../../../src/modules/access/service.ts';
import type { AuditEntry } from '../../../src/modules/audit/service.ts';
import { UploadsUnderWay } from '../../../src/modules/files/model.ts';
import { createFileRendering } from '../../../src/modules/files/rendering.service.ts';
import { type FileUploads, createFileUploads } from '../../../src/modules/files/uploads.service.ts';
import { type FileViewer, createFileViewer } from '../../../src/modules/files/viewer.service.ts';
import { openContext } from '../../../src/runtime.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';

/**
 * The files services on a throwaway SQLite database, with the page renderer faked (every document
 * has three pages; a page may be held until the renderer is closed) and the clock faked.
 */
const APP = 'app-files-spec';
const PAGES = 3;

/** A renderer that draws small fake images at once, except the pages in `hold`, which wait until it is closed. */
class FakeRenderer {
  drawn: number[] = [];
  hold = new Set<number>();
  closed = false;
  private onClose: (() => void)[] = [];

  async open(): Promise<OpenDocument> {
    if (this.closed) throw new RenderError('closed', 'the renderer is closed');
    return { handle: 1, generation: 0, pageCount: PAGES, encrypted: false };
  }

  async render(_doc: OpenDocument, page: number, widths: number[]): Promise<RenderedImage[]> {
    if (this.hold.has(page)) {
      await new Promise<void>((resolve) => this.onClose.push(resolve));
      throw new RenderError('closed', 'the renderer is closed');
    }
    this.drawn.push(page);
    return widths.map((width) => ({ width, height: Math.round(width * 1.5), bytes: new Uint8Array([page, width % 256]) }));
  }

  async release(): Promise<void> {}

  interrupt(): void {}

  async close(): Promise<void> {
    this.closed = true;
    for (const resolve of this.onClose.splice(0)) resolve();
  }
}

const member = (userId: number, isManager: boolean) => ({ app: { id: APP }, userId, isManager }) as unknown as Actor;
const uploader = member(11, false);
const otherSales = member(12, false);
const admin = member(13, true);

let dir: string;
let ctx: AppContext & { close(): Promise<void> };
let clock: FakeClock;
let jobs: BackgroundJobs;
let renderer: FakeRenderer;
let audit: AuditEntry[];
let uploads: FileUploads;
let viewer: FileViewer;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-files-spec-'));
  const opened = await openContext(loadConfig({ DATA_DIR: dir, RAPPORT_INSECURE_FAST_HASH: '1' }), createLogger('silent'));
  clock = new FakeClock();
  ctx = { ...opened, clock, close: () => opened.database.close() };
  // The project the files belong to (files name it), and its creator.
  const now = clock.now();
  const user = { password_hash: 'x', email_status: 0, phone_num_status: 0, cc_num: 0, status: 0, created_at: now, updated_at: now };
  const { id: creator } = await ctx.database.db.insertInto('users').values(user).returning('id').executeTakeFirstOrThrow();
  await ctx.database.db
    .insertInto('apps')
    .values({ id: APP, creator_id: creator, name: 'Files', secret: 's', status: 0, create_time: now, edit_time: now })
    .execute();

  renderer = new FakeRenderer();
  audit = [];
  jobs = new BackgroundJobs(clock, { ticked: () => {}, failed: () => {} });
  const storage = new LocalFileStorage(path.join(dir, 'files'));
  const uploading = new UploadsUnderWay();
  const fake = renderer as unknown as PageRenderer;
  const job = jobs.define(createFileRendering(ctx, { storage, renderer: fake, uploading }).job);
  viewer = createFileViewer(ctx, storage);
  uploads = createFileUploads(ctx, {
    storage,
    audit: async (_db, entry) => {
      audit.push(entry);
    },
    renderer: fake,
    uploading,
    viewer,
    rendered: () => job.poke(),
  });
});

afterEach(async () => {
  await jobs.stop();
  await ctx.close();
  // A page the stopped job was writing may land while the folder goes: rmSync retries ENOTEMPTY.
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
});

/** The deck fixture as the upload route leaves it: a file in the incoming folder. */
function incomingDeck(name = 'deck.pdf') {
  fs.mkdirSync(uploads.upload.dir, { recursive: true });
  const file = path.join(uploads.upload.dir, `${Math.random().toString(36).slice(2)}.part`);
  fs.copyFileSync(path.join(import.meta.dirname, '../../fixtures/files/deck.pdf'), file);
  return { path: file, filename: name, size: fs.statSync(file).size, tooLarge: false };
}

/** Waits (in real time: the job's ticks read and write the database) until `check` holds. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('a member uploads a file, and the file-render job draws its pages', () => {
  it('answers processing at the clock’s time, then the job renders every page for members and the viewer', async () => {
    const incoming = incomingDeck('Q3 deck.pdf');
    const file = await uploads.create(uploader, { incoming });
    expect(file).toMatchObject({ name: 'Q3 deck.pdf', status: 'processing', pageCount: PAGES, renderedPages: 0 });
    expect(file.createdAt).toBe(clock.format(clock.now()));
    expect(fs.existsSync(incoming.path)).toBe(false);
    expect(audit).toEqual([expect.objectContaining({ appId: APP, actorId: 11, action: 'file.upload', targetId: file.id })]);

    // The upload poked the job, which was not running: it started and took the file up.
    await until(async () => (await uploads.get(uploader, file.id)).status === 'ready', 'the file is rendered');
    expect(renderer.drawn).toEqual([1, 2, 3]);
    expect(await uploads.get(otherSales, file.id)).toMatchObject({ renderedPages: PAGES });
    const shown = await viewer.viewerFile(APP, file.id);
    expect(shown?.pages).toHaveLength(PAGES);
    expect(shown?.pages[1]).toEqual({ n: 2, desktop: { width: 1600, height: 2400 }, phone: { width: 750, height: 1125 } });

    const image = await uploads.page(otherSales, { fileId: file.id, n: 2, width: 'phone' });
    expect(image.notModified).toBe(false);
    if (!image.notModified) image.body.destroy();
    expect(await uploads.page(otherSales, { fileId: file.id, n: 2, width: 'phone', ifNoneMatch: image.etag })).toEqual({
      notModified: true,
      etag: image.etag,
    });
    await expect(uploads.page(otherSales, { fileId: file.id, n: 4, width: 'desktop' })).rejects.toMatchObject({ code: 'page_not_found' });
  });

  it('gives a new version to the uploader and to managers only, refused before the body is read', async () => {
    const file = await uploads.create(uploader, { incoming: incomingDeck() });
    await expect(uploads.checkUpload(otherSales, { fileId: file.id, contentLength: 10, overhead: 0 })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(uploads.checkUpload(admin, { fileId: file.id, contentLength: 10, overhead: 0 })).resolves.toBeUndefined();
    const limit = ctx.config.files.maxBytes;
    await expect(uploads.checkUpload(uploader, { contentLength: limit + 101, overhead: 100 })).rejects.toMatchObject({
      code: 'invalid_file',
    });
    await expect(uploads.replace(otherSales, { fileId: file.id, incoming: incomingDeck() })).rejects.toMatchObject({ code: 'forbidden' });

    await clock.advance(60_000);
    const replaced = await uploads.replace(admin, { fileId: file.id, incoming: incomingDeck('v2.pdf') });
    expect(replaced).toMatchObject({ id: file.id, name: 'v2.pdf', version: 2, status: 'processing' });
    expect(replaced.updatedAt).toBe(clock.format(clock.now()));
    expect(audit.map((a) => a.action)).toEqual(['file.upload', 'file.replace']);
  });
});

describe('stopping the job', () => {
  it('closes the renderer, so a long page does not hold the stop, and gives the file up where it stopped', async () => {
    renderer.hold.add(2);
    const file = await uploads.create(uploader, { incoming: incomingDeck() });
    await until(async () => (await uploads.get(uploader, file.id)).renderedPages === 1, 'the first page is stored');

    await jobs.stop();
    expect(renderer.closed).toBe(true);
    const row = await ctx.database.db
      .selectFrom('files')
      .selectAll()
      .where('app_id', '=', APP)
      .where('id', '=', file.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'processing', rendered_pages: 1, lease_until: null });
  });
});
