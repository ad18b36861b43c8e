import type { AppContext } from '../../context.ts';
import type { FileStorage } from '../../lib/file-storage.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import { type OpenDocument, type PageRenderer, RenderError, type RenderedImage } from '../../lib/page-renderer.ts';
import type { FilePageRow, FileRow } from './mapper.ts';
import { type FileVersion, PAGE_WIDTHS, type UploadsUnderWay, contentPrefix, kindOfMime, originalKey, pageKey } from './model.ts';
import { RenderShares } from './render-shares.ts';
import { filesRepository as repo } from './repository.ts';

/**
 * A turn of the renderer (docs/files.md): the file being rendered gives way once its project has had
 * this much more renderer time than another project with work, between pages, or by having the page
 * being drawn stopped (once a page: then it is drawn to its end).
 */
const TURN_MS = 1500;
/** How often the file being rendered looks whether to give way. */
const TURN_CHECK_MS = 250;
/** A page drawn this long may be stopped for a project a turn behind (a shorter one is let finish: a new renderer costs more). */
const PAGE_GRACE_MS = 1000;
/** How long a file that gave way waits for other projects' uploads being checked to be stored, so they go next. */
const UPLOADS_WAIT_MS = 5000;
/** How often an idle renderer looks for files no process holds (another process's, or one left by a crash). */
export const RENDER_POLL_MS = 5000;

/** The file being rendered: its version, and when it last looked whether to give way between pages. */
interface Turn extends FileVersion {
  checked: number;
}

/** How a rendering ended short of its last page. */
type Stopped = 'replaced' | 'gave-way';

/**
 * The rendering of uploaded files into page images, after the upload is answered (docs/files.md,
 * ADR 0019): a background job, one file at a time, with the database as the queue (a file is held
 * by its lease, `lease_until`). Projects share the renderer: the one that has had least renderer time
 * goes next, and the file under way gives way to a project a turn behind. Stopping the job closes
 * the renderer's child, and the file under way is given up for the next process to take up.
 */
export function createFileRendering(ctx: AppContext, deps: { storage: FileStorage; renderer: PageRenderer; uploading: UploadsUnderWay }) {
  const { storage, renderer, uploading } = deps;
  const db = ctx.database.db;
  const { clock, logger } = ctx;
  const limits = ctx.config.files;
  const leaseMs = Math.max(60_000, 3 * limits.pageTimeoutMs);
  const widths = [PAGE_WIDTHS.desktop, PAGE_WIDTHS.phone];
  /** Each project's share of the renderer: the one that has had least renderer time goes next. */
  const shares = new RenderShares(TURN_MS);
  /** The page of each version that was stopped for another project: it is drawn to its end next time. */
  const stoppedPages = new Map<string, number>();

  /**
   * The next file to render, taken: projects share the renderer, so one project's backlog never
   * holds another's file behind it. The project with work that has had least renderer time in this
   * process goes next (a project new to it first), with its oldest waiting file.
   */
  async function claimNext(): Promise<FileRow | null> {
    const now = clock.now();
    const projects = await repo.waitingProjects(db, now);
    shares.present([...projects.map((p) => p.appId), ...uploading.projects()]);
    for (const { appId } of shares.order(projects)) {
      for (const c of await repo.waiting(db, appId, now, 5)) {
        if (!(await repo.claim(db, c.app_id, c.id, c.content_id, now, now + leaseMs))) continue;
        const file = await repo.find(db, c.app_id, c.id);
        // A new version in between: it is waiting (with no lease) for the next look.
        if (file?.content_id !== c.content_id) continue;
        shares.started(appId);
        return file;
      }
    }
    return null;
  }

  /** Whether another project with work (a file waiting, an upload being checked here) is a turn behind `appId`'s. */
  async function shouldGiveWay(appId: string): Promise<boolean> {
    const waiting = await repo.waitingProjects(db, clock.now());
    return shares.shouldGiveWay(appId, [...waiting.map((p) => p.appId), ...uploading.projects()]);
  }

  /**
   * Page `n`'s images once drawn. A page drawn longer than PAGE_GRACE_MS while another project is a
   * turn behind is stopped (unless this page was stopped before), and this throws a RenderError
   * `interrupted`.
   */
  async function pageInTurn(turn: Turn, n: number, pending: Promise<RenderedImage[]>, doc: () => OpenDocument): Promise<RenderedImage[]> {
    const since = clock.now();
    let done = false;
    const page = pending.finally(() => (done = true));
    const drawn = page.then(
      () => {},
      () => {},
    );
    while (!done) {
      let cancel = () => {};
      await Promise.race([drawn, new Promise<void>((r) => (cancel = clock.after(TURN_CHECK_MS, r)))]);
      cancel();
      if (done || stoppedPages.get(turn.contentId) === n || clock.now() - since < PAGE_GRACE_MS) continue;
      if (await shouldGiveWay(turn.appId)) {
        stoppedPages.set(turn.contentId, n);
        renderer.interrupt(doc());
      }
    }
    return page;
  }

  /** A file that gave way lets other projects' uploads under way be stored first, so they are taken next. */
  async function letUploadsIn(appId: string): Promise<void> {
    const until = clock.now() + UPLOADS_WAIT_MS;
    while (uploading.othersThan(appId) && clock.now() < until) await new Promise<void>((r) => clock.after(50, r));
  }

  /** Stores page `n`'s images and its row; false when the version is no longer this process's to render. */
  async function storePage(turn: Turn, n: number, images: RenderedImage[]): Promise<boolean> {
    const [desktop, phone] = images;
    if (!desktop || !phone) throw new RenderError('failed', 'the renderer returned no image');
    await storage.put(pageKey(turn, n, 'desktop'), desktop.bytes);
    await storage.put(pageKey(turn, n, 'phone'), phone.bytes);
    const page: FilePageRow = {
      app_id: turn.appId,
      file_id: turn.id,
      page: n,
      content_id: turn.contentId,
      desktop_width: desktop.width,
      desktop_height: desktop.height,
      desktop_bytes: desktop.bytes.byteLength,
      phone_width: phone.width,
      phone_height: phone.height,
      phone_bytes: phone.bytes.byteLength,
      created_at: clock.now(),
    };
    return db.transaction().execute((trx) => repo.pageRendered(trx, page, clock.now() + leaseMs));
  }

  /**
   * Draws and stores the file's pages from the first not yet rendered: null once the last is stored,
   * else why it stopped short. The renderer draws the next page while this one's images are stored.
   */
  async function renderPages(file: FileRow, turn: Turn, data: Buffer): Promise<Stopped | null> {
    const kind = kindOfMime(file.mime_type);
    const open = () => renderer.open({ data }, kind === 'pdf' ? 'pdf' : 'image');
    let doc = await open();
    try {
      const draw = async (n: number) => {
        try {
          return await renderer.render(doc, n, widths);
        } catch (err) {
          // Another file's check stopped the renderer this document was open on: open it again.
          if (!(err instanceof RenderError) || err.kind !== 'lost') throw err;
          doc = await open();
          return renderer.render(doc, n, widths);
        }
      };
      let next = file.rendered_pages < file.page_count ? draw(file.rendered_pages + 1) : null;
      for (let n = file.rendered_pages + 1; n <= file.page_count && next !== null; n += 1) {
        const images = await pageInTurn(turn, n, next, () => doc);
        // Between two pages (looked at every TURN_CHECK_MS), the file gives way to a project a turn behind.
        const look = n < file.page_count && clock.now() - turn.checked >= TURN_CHECK_MS;
        if (look) turn.checked = clock.now();
        const givingWay = look && (await shouldGiveWay(turn.appId));
        next = n < file.page_count && !givingWay ? draw(n + 1) : null;
        // Not waited for when this file stops early; its failure is this loop's to report, not an unhandled one.
        next?.catch(() => {});
        if (!(await storePage(turn, n, images))) return 'replaced';
        if (givingWay) return 'gave-way';
      }
      return null;
    } finally {
      await renderer.release(doc);
    }
  }

  /** Renders one claimed file to its end, or until it gives way, is replaced, fails or the job stops. */
  async function renderFile(file: FileRow): Promise<void> {
    const turn: Turn = { appId: file.app_id, id: file.id, contentId: file.content_id, checked: clock.now() };
    const started = clock.now();
    try {
      const data = await storage.read(originalKey(turn, kindOfMime(file.mime_type)));
      if (data === null) throw new RenderError('failed', 'the stored file is missing');
      const stopped = await renderPages(file, turn, data);
      if (stopped === 'replaced') {
        // A new version replaced this one while it was being rendered: its pages are not wanted.
        // (Else another process holds the file now, having found this one's lease run out: it goes on.)
        const now = await repo.find(db, turn.appId, turn.id);
        if (now?.content_id !== turn.contentId) await storage.removePrefix(contentPrefix(turn));
        return;
      }
      if (stopped === 'gave-way') return await giveWay(turn);
      stoppedPages.delete(turn.contentId);
      await repo.finish(db, turn.appId, turn.id, turn.contentId, { status: 'ready', failure: null }, clock.now());
      logger.info({ appId: turn.appId, fileId: turn.id, pages: file.page_count, ms: clock.now() - started }, 'files: rendered');
    } catch (err) {
      await renderingStopped(turn, err);
    } finally {
      shares.ended();
    }
  }

  /** A rendering that threw: the job stopping (given up), another project's turn (gave way), else failed. */
  async function renderingStopped(turn: Turn, err: unknown): Promise<void> {
    if (err instanceof RenderError && err.kind === 'closed') {
      // The server is stopping: give the file up, for the next server to take up at once.
      await release(turn);
      return;
    }
    if (err instanceof RenderError && err.kind === 'interrupted') {
      await giveWay(turn);
      return;
    }
    stoppedPages.delete(turn.contentId);
    logger.warn({ err, appId: turn.appId, fileId: turn.id }, 'files: rendering failed');
    await failRendering(turn, failureReason(err));
  }

  async function release(v: FileVersion): Promise<void> {
    await repo.release(db, v.appId, v.id, v.contentId).catch((e: unknown) => logger.warn({ err: e }, 'files: could not give a file up'));
  }

  /** Gives the file up for now, to be taken up again after other projects' work, from the page after the last rendered. */
  async function giveWay(v: FileVersion): Promise<void> {
    shares.ended();
    await letUploadsIn(v.appId);
    await release(v);
  }

  /** Why a file could not be rendered, as its `failure` says (docs/files.md). */
  function failureReason(err: unknown): string {
    if (!(err instanceof RenderError)) return 'It could not be rendered';
    if (err.kind === 'timeout') return `A page took longer than ${limits.pageTimeoutMs} ms to render (${err.message})`;
    if (err.kind === 'memory') return `It needs more memory than the renderer may use (${limits.renderMemoryMb} MB): ${err.message}`;
    if (err.kind === 'crashed') return `The renderer stopped while rendering it (${err.message})`;
    return `It could not be rendered: ${err.message}`;
  }

  /** Marks the version failed and removes its pages (the original is kept). */
  async function failRendering(v: FileVersion, reason: string): Promise<void> {
    try {
      const marked = await db.transaction().execute(async (trx) => {
        if (!(await repo.finish(trx, v.appId, v.id, v.contentId, { status: 'failed', failure: reason }, clock.now()))) return false;
        await repo.deletePages(trx, v.appId, v.id);
        return true;
      });
      if (marked) await storage.removePrefix(`${contentPrefix(v)}/pages`);
    } catch (err) {
      logger.error({ err, appId: v.appId, fileId: v.id }, 'files: could not record a failed rendering');
    }
  }

  /**
   * The background job `file-render`: each tick takes the next file (files left processing by a
   * stopped or crashed process too, once their lease has run out) and renders it. An upload made here
   * starts it without a server's start. Its stop closes the renderer's child, so a long page does not
   * hold the shutdown: the file under way is given up where it stopped.
   */
  const job: JobDefinition = {
    name: 'file-render',
    idleMs: RENDER_POLL_MS,
    startOnPoke: true,
    async tick() {
      const file = await claimNext();
      if (file === null) return 'idle';
      await renderFile(file);
      return 'worked';
    },
    stopping: () => renderer.close(),
  };

  return { job };
}

export type FileRendering = ReturnType<typeof createFileRendering>;
