/**
 * The page renderer's child process as PageRenderer (page-renderer.ts) sees it: how it is started,
 * how its failures and its death are told apart, and its resident memory, which the watchdog samples.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

// Beside this module in src/ (the tests) and beside the server bundle in dist/, which holds this module.
const WORKER_FILE = fileURLToPath(new URL('./page-render-worker.js', import.meta.url));

/**
 * Why an operation failed: `timeout` (it took longer than allowed), `memory` (the child ran out of
 * its memory budget, or was killed for going over it), `crashed` (the child stopped otherwise),
 * `lost` (the document was open on a child since stopped), `interrupted` (its user stopped it, to
 * let other work go first), `password` (the PDF needs one),
 * `invalid` (not a PDF or image pdf.js or the decoder can read), `closed` (the renderer was closed),
 * `failed` (anything else the renderer threw while drawing).
 */
export type RenderErrorKind = 'timeout' | 'memory' | 'crashed' | 'lost' | 'interrupted' | 'password' | 'invalid' | 'closed' | 'failed';

export class RenderError extends Error {
  constructor(
    readonly kind: RenderErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

const PAGE_BYTES = 4096;

/** An allocation that failed, as the child reports it (V8, C++, Skia, an ArrayBuffer). */
const OUT_OF_MEMORY = /out of memory|allocation failed|bad_alloc|Cannot allocate memory|Create skia surface failed/i;

/** The child's errors as kinds: pdf.js's exception names, the image decoder's messages, failed allocations. */
export function kindOf(name: string, message: string): RenderErrorKind {
  if (name === 'PasswordException') return 'password';
  if (name === 'InvalidPDFException' || name === 'InvalidImage' || name === 'FormatError') return 'invalid';
  if (name === 'DocumentLost') return 'lost';
  if (OUT_OF_MEMORY.test(message)) return 'memory';
  return 'failed';
}

/**
 * Why a child that was not asked to stop died. Under its data limit an allocation that fails kills
 * it with a signal (a C++ abort, a dereferenced null in native code) or V8's out-of-memory report; a
 * signal we did not send is taken for that, as is the kernel's OOM killer.
 */
export function deathOf(code: number | null, signal: NodeJS.Signals | null, stderr: string): RenderError {
  if (OUT_OF_MEMORY.test(stderr) || signal !== null) {
    return new RenderError('memory', `the renderer ran out of memory (${signal ?? `exit code ${code}`})`);
  }
  return new RenderError('crashed', `the renderer stopped (exit code ${code})`);
}

/** Resident memory of a process in MB, from /proc (Linux); null where it cannot be read. */
export function residentMb(pid: number): number | null {
  try {
    const pages = Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return Number.isFinite(pages) ? (pages * PAGE_BYTES) / 1048576 : null;
  } catch {
    return null;
  }
}

/** The command that starts the child: under `ulimit -d` where a POSIX shell has it, else node alone. */
export function childCommand(memoryMb: number, settings: string): { command: string; args: string[] } {
  const node = [`--max-old-space-size=${Math.max(64, Math.floor(memoryMb / 2))}`, WORKER_FILE, settings];
  if (process.platform === 'win32' || !fs.existsSync('/bin/sh')) return { command: process.execPath, args: node };
  // `exec` keeps the pid (the watchdog's and the kill's target) and the IPC channel's descriptor.
  const script = `ulimit -d ${memoryMb * 1024} 2>/dev/null; exec "$0" "$@"`;
  return { command: '/bin/sh', args: ['-c', script, process.execPath, ...node] };
}
