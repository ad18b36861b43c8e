/**
 * Draws the pages of PDFs and images into WebP images on one worker thread, so that the event loop
 * stays free (ADR 0019). Operations run one at a time in the order asked, urgent ones (an upload
 * being checked) first. Each has `timeoutMs` once the thread starts it: past that, the thread is
 * stopped, the operation fails with a `RenderError` of kind `timeout`, and the next operation gets
 * a fresh thread. A thread that dies (out of memory) fails its operation the same way, as `crashed`.
 * Documents open on a stopped thread are gone: rendering them fails as `lost`, and their user opens
 * them again. The thread is stopped after a while with no open document, to give its memory back.
 */
import { Worker } from 'node:worker_threads';

// Beside this module in src/ (the tests) and beside the server bundle in dist/, which holds this module.
const WORKER_FILE = new URL('./page-render-worker.js', import.meta.url);

/**
 * Why an operation failed: `timeout` (it took longer than allowed), `crashed` (the thread died),
 * `lost` (the document was open on a thread since stopped), `password` (the PDF needs one),
 * `invalid` (not a PDF or image pdf.js or the decoder can read), `closed` (the renderer was closed),
 * `failed` (anything else the renderer threw while drawing).
 */
export type RenderErrorKind = 'timeout' | 'crashed' | 'lost' | 'password' | 'invalid' | 'closed' | 'failed';

export class RenderError extends Error {
  constructor(
    readonly kind: RenderErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

export interface RendererOptions {
  /** Milliseconds one operation (opening a document, drawing a page) may take. */
  timeoutMs: number;
  /** Images inside a PDF page larger than this many pixels are left out instead of decoded. */
  maxImagePixels: number;
  /** Neither side of a drawn page exceeds this many pixels. */
  maxSide: number;
  /** WebP quality, 0–1. */
  quality: number;
  /** A directory of extra fonts for text in fonts a PDF does not embed. */
  fontDir: string | undefined;
  /** Milliseconds without an open document after which the thread is stopped (default 30 s). */
  idleMs?: number;
  /** Heap limit of the thread, in MB (default 512): a document that needs more fails as `crashed`. */
  heapMb?: number;
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
  | { op: 'release'; handle: number };

interface Job {
  request: Request;
  /** The generation a document operation belongs to; it is `lost` on any other. */
  generation: number | null;
  resolve(value: unknown): void;
  reject(error: RenderError): void;
}

type Reply =
  { ready: true } | { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { name: string; message: string } };

const STARTUP_TIMEOUT_MS = 60_000;

/** The worker's errors as kinds: pdf.js's exception names, the image decoder's messages. */
function kindOf(name: string): RenderErrorKind {
  if (name === 'PasswordException') return 'password';
  if (name === 'InvalidPDFException' || name === 'InvalidImage' || name === 'FormatError') return 'invalid';
  if (name === 'DocumentLost') return 'lost';
  return 'failed';
}

export class PageRenderer {
  private worker: Worker | null = null;
  private ready = false;
  /** Bumped whenever the thread is stopped or dies: documents of older generations are gone. */
  private generation = 0;
  private readonly urgent: Job[] = [];
  private readonly queue: Job[] = [];
  private running: (Job & { id: number }) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private openDocuments = 0;
  private nextId = 1;
  private nextHandle = 1;
  private closed = false;

  constructor(private readonly options: RendererOptions) {}

  /** Opens a PDF (`pdf`) or a PNG or JPEG (`image`); `urgent` puts it before queued page drawings. */
  async open(source: DocumentSource, kind: 'pdf' | 'image', urgent = false): Promise<OpenDocument> {
    const handle = this.nextHandle++;
    const result = (await this.submit({ op: 'open', handle, kind, ...source }, null, urgent)) as { pageCount: number; encrypted: boolean };
    this.openDocuments += 1;
    return { handle, generation: this.generation, pageCount: result.pageCount, encrypted: result.encrypted };
  }

  /** Draws page `page` (from 1) once at each width (pixels), largest first, as WebP. */
  async render(doc: OpenDocument, page: number, widths: number[]): Promise<RenderedImage[]> {
    return (await this.submit({ op: 'render', handle: doc.handle, page, widths }, doc.generation, false)) as RenderedImage[];
  }

  /** Closes a document; one on a stopped thread is already gone. */
  async release(doc: OpenDocument): Promise<void> {
    if (doc.generation !== this.generation) return;
    this.openDocuments = Math.max(0, this.openDocuments - 1);
    try {
      await this.submit({ op: 'release', handle: doc.handle }, doc.generation, false);
    } catch {
      // The thread that held it is gone: so is the document.
    }
    this.armIdle();
  }

  /** Stops the thread; queued and running operations fail as `closed`. */
  async close(): Promise<void> {
    this.closed = true;
    const failed = [...this.urgent.splice(0), ...this.queue.splice(0)];
    if (this.running) failed.push(this.running);
    this.running = null;
    for (const job of failed) job.reject(new RenderError('closed', 'the renderer is closed'));
    await this.stopWorker();
  }

  private submit(request: Request, generation: number | null, urgent: boolean): Promise<unknown> {
    if (this.closed) return Promise.reject(new RenderError('closed', 'the renderer is closed'));
    return new Promise((resolve, reject) => {
      (urgent ? this.urgent : this.queue).push({ request, generation, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    if (this.running || this.closed) return;
    const job = this.urgent.shift() ?? this.queue.shift();
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
    if (!this.ready) return; // sent when the thread says it is ready
    this.send(worker);
  }

  private send(worker: Worker): void {
    const job = this.running;
    if (!job) return;
    const what =
      job.request.op === 'render'
        ? `drawing page ${job.request.page}`
        : `${job.request.op === 'open' ? 'opening' : 'closing'} the document`;
    this.timer = setTimeout(() => {
      this.restart(new RenderError('timeout', `${what} took longer than ${this.options.timeoutMs} ms`));
    }, this.options.timeoutMs);
    this.timer.unref();
    worker.postMessage({ id: job.id, ...job.request });
  }

  private startWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_FILE, {
      workerData: {
        maxImagePixels: this.options.maxImagePixels,
        maxSide: this.options.maxSide,
        quality: this.options.quality,
        fontDir: this.options.fontDir ?? null,
      },
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb ?? 512 },
      stdout: true,
      stderr: false,
    });
    // pdf.js prints warnings with console.log; nothing of the worker's goes to the server's stdout.
    worker.stdout.resume();
    worker.unref();
    this.worker = worker;
    this.ready = false;
    const startup = setTimeout(() => this.restart(new RenderError('crashed', 'the renderer did not start')), STARTUP_TIMEOUT_MS);
    startup.unref();
    worker.on('message', (reply: Reply) => {
      if (this.worker !== worker) return;
      if ('ready' in reply) {
        clearTimeout(startup);
        this.ready = true;
        this.send(worker);
        return;
      }
      const job = this.running;
      if (!job || job.id !== reply.id) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.running = null;
      if (reply.ok) job.resolve(reply.result);
      else job.reject(new RenderError(kindOf(reply.error.name), reply.error.message));
      this.dispatch();
    });
    worker.on('error', (err) => {
      clearTimeout(startup);
      if (this.worker === worker) this.restart(new RenderError('crashed', `the renderer stopped: ${err.message}`));
    });
    worker.on('exit', (code) => {
      clearTimeout(startup);
      if (this.worker === worker) this.restart(new RenderError('crashed', `the renderer stopped (exit code ${code})`));
    });
    return worker;
  }

  /** Stops the thread, fails the running operation with `error`, and goes on with the next on a new thread. */
  private restart(error: RenderError): void {
    const job = this.running;
    this.running = null;
    void this.stopWorker();
    job?.reject(error);
    this.dispatch();
  }

  private async stopWorker(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.timer = null;
    this.idleTimer = null;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    this.ready = false;
    this.generation += 1;
    this.openDocuments = 0;
    await worker.terminate();
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
