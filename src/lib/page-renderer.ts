/**
 * Draws the pages of PDFs and images into WebP images in one child process, so that the event loop
 * stays free and the renderer's memory can be bounded (ADR 0019). Operations run one at a time in the
 * order asked, urgent ones (an upload being checked) first. Each has `timeoutMs` once the child
 * starts it: past that, the child is killed, the operation fails with a `RenderError` of kind
 * `timeout`, and the next operation gets a fresh child. The child's memory is bounded twice: its data
 * segment by `ulimit -d` (an allocation past it fails, and the child dies), and its resident memory by
 * a watchdog that samples it and kills it past the budget; either fails the operation as `memory`.
 * pdf.js inflates image data outside the JavaScript heap, so a heap cap alone bounds nothing.
 * Documents open on a stopped child are gone: rendering them fails as `lost`, and their user opens
 * them again. The child is stopped after a while with no open document, to give its memory back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { RenderError, childCommand, deathOf, kindOf, residentMb } from './page-render-process.ts';

export { RenderError, type RenderErrorKind } from './page-render-process.ts';

export interface RendererOptions {
  /** Milliseconds one operation (opening a document, drawing a page) may take. */
  timeoutMs: number;
  /** Images inside a PDF page larger than this many pixels are left out instead of decoded. */
  maxImagePixels: number;
  /** Neither side of a drawn page exceeds this many pixels. */
  maxSide: number;
  /** WebP quality, 0–100. */
  quality: number;
  /** A directory of extra fonts for text in fonts a PDF does not embed. */
  fontDir: string | undefined;
  /**
   * Memory of the child, in MB: its data segment (`ulimit -d`) and resident memory (the watchdog);
   * its JavaScript heap gets half. A document that needs more fails as `memory`.
   */
  memoryMb: number;
  /** Milliseconds without an open document after which the child is stopped (default 30 s). */
  idleMs?: number;
}

export interface OpenDocument {
  readonly handle: number;
  readonly generation: number;
  readonly pageCount: number;
  /** The PDF is encrypted (it has an /Encrypt dictionary, though it opened without a password). */
  readonly encrypted: boolean;
}

export interface RenderedImage {
  width: number;
  height: number;
  bytes: Uint8Array;
}

/** A document's bytes, or the path of a local file the thread reads them from (they never pass through the event loop). */
export type DocumentSource = { data: Uint8Array } | { path: string };

type Request =
  | ({ op: 'open'; handle: number; kind: 'pdf' | 'image' } & DocumentSource)
  | { op: 'render'; handle: number; page: number; widths: number[] }
  | { op: 'release'; handle: number }
  | { op: 'stamp'; data: Uint8Array; text: string; format: 'webp' | 'jpeg'; quality: number };

/** A watermark to draw into an image (watermark.js): its text, and how the result is encoded (quality 0–100). */
export interface Stamp {
  text: string;
  format: 'webp' | 'jpeg';
  quality: number;
}

interface Job {
  request: Request;
  /** The generation a document operation belongs to; it is `lost` on any other. */
  generation: number | null;
  /** Whose urgent operation it is (a project); null for one that is not urgent. */
  owner: string | null;
  resolve(value: unknown): void;
  reject(error: RenderError): void;
}

type Reply =
  { ready: true } | { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { name: string; message: string } };

const STARTUP_TIMEOUT_MS = 60_000;
/** How often the watchdog samples the child's resident memory. */
const WATCH_MS = 20;
/** The last of the child's standard error kept, to tell why it died. */
const STDERR_KEPT = 4096;
/** Urgent operations taken in a row before a queued one gets its turn. */
const URGENT_IN_A_ROW = 4;

export class PageRenderer {
  private worker: ChildProcess | null = null;
  private ready = false;
  /** Bumped whenever the child is stopped or dies: documents of older generations are gone. */
  private generation = 0;
  private readonly urgent: Job[] = [];
  private readonly queue: Job[] = [];
  private running: (Job & { id: number }) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private openDocuments = 0;
  /** When each owner's last urgent operation was taken (a turn number). */
  private readonly urgentTurns = new Map<string, number>();
  private urgentTurn = 0;
  private urgentInRow = 0;
  private nextId = 1;
  private nextHandle = 1;
  private closed = false;

  constructor(private readonly options: RendererOptions) {}

  /**
   * Opens a PDF (`pdf`) or a PNG or JPEG (`image`). `urgent` puts it before queued page drawings;
   * urgent opens of different `owner`s (projects) take turns, so one owner's many cannot hold
   * another's behind them.
   */
  async open(source: DocumentSource, kind: 'pdf' | 'image', urgent?: { owner: string }): Promise<OpenDocument> {
    const handle = this.nextHandle++;
    const request: Request = { op: 'open', handle, kind, ...source };
    const result = (await this.submit(request, null, urgent?.owner ?? null)) as { pageCount: number; encrypted: boolean };
    this.openDocuments += 1;
    return { handle, generation: this.generation, pageCount: result.pageCount, encrypted: result.encrypted };
  }

  /** Draws page `page` (from 1) once at each width (pixels), largest first, as WebP. */
  async render(doc: OpenDocument, page: number, widths: number[]): Promise<RenderedImage[]> {
    return (await this.submit({ op: 'render', handle: doc.handle, page, widths }, doc.generation, null)) as RenderedImage[];
  }

  /**
   * Draws a watermark's text into an image the renderer made (a stored page image), encoded as the
   * stamp says. It goes before queued page drawings, taking turns with other `owner`s' urgent
   * operations (projects), as an upload's check does.
   */
  async stamp(image: Uint8Array, stamp: Stamp, urgent: { owner: string }): Promise<RenderedImage> {
    return (await this.submit({ op: 'stamp', data: image, ...stamp }, null, urgent.owner)) as RenderedImage;
  }

  /** Closes a document; one on a stopped child is already gone. */
  async release(doc: OpenDocument): Promise<void> {
    if (doc.generation !== this.generation) return;
    this.openDocuments = Math.max(0, this.openDocuments - 1);
    try {
      await this.submit({ op: 'release', handle: doc.handle }, doc.generation, null);
    } catch {
      // The child that held it is gone: so is the document.
    }
    this.armIdle();
  }

  /**
   * Stops the drawing of the document's pages, queued or under way (the child is killed for one under
   * way: pdf.js cannot be stopped in the middle of a page); they fail as `interrupted`.
   */
  interrupt(doc: OpenDocument): void {
    const error = () => new RenderError('interrupted', 'the drawing was stopped to let other work go first');
    const mine = (job: Job) => job.request.op === 'render' && job.request.handle === doc.handle && job.generation === doc.generation;
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const job = this.queue[i] as Job;
      if (!mine(job)) continue;
      this.queue.splice(i, 1);
      job.reject(error());
    }
    if (this.running && mine(this.running)) this.restart(error());
  }

  /** Stops the child; queued and running operations fail as `closed`. */
  async close(): Promise<void> {
    this.closed = true;
    const failed = [...this.urgent.splice(0), ...this.queue.splice(0)];
    if (this.running) failed.push(this.running);
    this.running = null;
    for (const job of failed) job.reject(new RenderError('closed', 'the renderer is closed'));
    await this.stopWorker();
  }

  /** Queues an operation; an urgent one (with its `owner`) goes before the others. */
  private submit(request: Request, generation: number | null, owner: string | null): Promise<unknown> {
    if (this.closed) return Promise.reject(new RenderError('closed', 'the renderer is closed'));
    return new Promise((resolve, reject) => {
      if (owner === null) this.queue.push({ request, generation, owner, resolve, reject });
      else this.urgent.push({ request, generation, owner, resolve, reject });
      this.dispatch();
    });
  }

  /** The urgent operation of the owner served longest ago (or never), first come first among equals. */
  private takeUrgent(): Job | undefined {
    const turnOf = (job: Job) => (job.owner === null ? -1 : (this.urgentTurns.get(job.owner) ?? -1));
    let best = -1;
    for (let i = 0; i < this.urgent.length; i++) {
      if (best === -1 || turnOf(this.urgent[i] as Job) < turnOf(this.urgent[best] as Job)) best = i;
    }
    if (best === -1) return undefined;
    const [job] = this.urgent.splice(best, 1) as [Job];
    if (job.owner !== null) this.urgentTurns.set(job.owner, ++this.urgentTurn);
    // Only owners with something queued need their turn remembered.
    if (this.urgentTurns.size > 1000) {
      const queued = new Set(this.urgent.map((j) => j.owner));
      for (const owner of this.urgentTurns.keys()) if (!queued.has(owner)) this.urgentTurns.delete(owner);
    }
    return job;
  }

  private dispatch(): void {
    if (this.running || this.closed) return;
    // Urgent operations go first, but a stream of them cannot hold the queued ones back for ever.
    const queuedTurn = this.urgentInRow >= URGENT_IN_A_ROW && this.queue.length > 0;
    const job = (queuedTurn ? undefined : this.takeUrgent()) ?? this.queue.shift();
    this.urgentInRow = job !== undefined && job.owner !== null ? this.urgentInRow + 1 : 0;
    if (!job) {
      this.armIdle();
      return;
    }
    if (job.generation !== null && job.generation !== this.generation) {
      job.reject(new RenderError('lost', 'the renderer was restarted since the document was opened'));
      this.dispatch();
      return;
    }
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const id = this.nextId++;
    this.running = { ...job, id };
    const worker = this.startWorker();
    if (!this.ready) return; // sent when the child says it is ready
    this.send(worker);
  }

  private send(worker: ChildProcess): void {
    const job = this.running;
    if (!job) return;
    const op = job.request.op;
    const what =
      op === 'render'
        ? `drawing page ${job.request.page}`
        : op === 'stamp'
          ? 'drawing a watermark'
          : `${op === 'open' ? 'opening' : 'closing'} the document`;
    this.timer = setTimeout(() => {
      this.restart(new RenderError('timeout', `${what} took longer than ${this.options.timeoutMs} ms`));
    }, this.options.timeoutMs);
    this.timer.unref();
    worker.send({ id: job.id, ...job.request });
  }

  private startWorker(): ChildProcess {
    if (this.worker) return this.worker;
    const settings = JSON.stringify({
      maxImagePixels: this.options.maxImagePixels,
      maxSide: this.options.maxSide,
      quality: this.options.quality,
      fontDir: this.options.fontDir ?? null,
    });
    const { command, args } = childCommand(this.options.memoryMb, settings);
    // NODE_OPTIONS is the server's (a test runner's loader, say), not the renderer's.
    const { NODE_OPTIONS: _, ...env } = process.env;
    const worker = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'advanced' });
    // pdf.js prints warnings with console.log; nothing of the child's goes to the server's output.
    worker.stdout?.resume();
    let stderr = '';
    worker.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-STDERR_KEPT)));
    worker.unref();
    worker.channel?.unref();
    this.worker = worker;
    this.ready = false;
    const startup = setTimeout(() => this.restart(new RenderError('crashed', 'the renderer did not start')), STARTUP_TIMEOUT_MS);
    startup.unref();
    this.watch(worker);
    worker.on('message', (reply: Reply) => {
      if (this.worker !== worker) return;
      if ('ready' in reply) {
        clearTimeout(startup);
        this.ready = true;
        this.send(worker);
        return;
      }
      this.answer(reply);
    });
    worker.on('error', (err) => {
      clearTimeout(startup);
      if (this.worker === worker) this.restart(new RenderError('crashed', `the renderer stopped: ${err.message}`));
    });
    worker.on('exit', (code, signal) => {
      clearTimeout(startup);
      if (this.worker !== worker) return;
      const job = this.running;
      this.running = null;
      void this.stopWorker();
      // Its standard error may still be arriving: the death is judged once its pipes have closed.
      worker.once('close', () => job?.reject(deathOf(code, signal, stderr)));
      this.dispatch();
    });
    return worker;
  }

  private answer(reply: Exclude<Reply, { ready: true }>): void {
    const job = this.running;
    if (!job || job.id !== reply.id) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = null;
    if (reply.ok) job.resolve(reply.result);
    else job.reject(new RenderError(kindOf(reply.error.name, reply.error.message), reply.error.message));
    this.dispatch();
  }

  /** Kills the child once its resident memory passes the budget (the data limit usually stops it first). */
  private watch(worker: ChildProcess): void {
    const pid = worker.pid;
    if (pid === undefined) return;
    this.watchdog = setInterval(() => {
      const mb = residentMb(pid);
      if (this.worker !== worker || mb === null || mb <= this.options.memoryMb) return;
      this.restart(new RenderError('memory', `the renderer used ${Math.round(mb)} MB, over its ${this.options.memoryMb} MB`));
    }, WATCH_MS);
    this.watchdog.unref();
  }

  /** Stops the child, fails the running operation with `error`, and goes on with the next on a new child. */
  private restart(error: RenderError): void {
    const job = this.running;
    this.running = null;
    void this.stopWorker();
    job?.reject(error);
    this.dispatch();
  }

  private async stopWorker(): Promise<void> {
    for (const t of [this.timer, this.idleTimer]) if (t) clearTimeout(t);
    if (this.watchdog) clearInterval(this.watchdog);
    this.timer = null;
    this.idleTimer = null;
    this.watchdog = null;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    this.ready = false;
    this.generation += 1;
    this.openDocuments = 0;
    if (worker.exitCode !== null || worker.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.kill('SIGKILL');
    await exited;
  }

  private armIdle(): void {
    if (this.idleTimer || !this.worker || this.running || this.openDocuments > 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (!this.running && this.openDocuments === 0 && this.urgent.length === 0 && this.queue.length === 0) void this.stopWorker();
    }, this.options.idleMs ?? 30_000);
    this.idleTimer.unref();
  }
}
