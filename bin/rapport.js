#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 node --max-old-space-size=256
/**
 * Runs the server's build, dist/rapport.js (`npm run build`, which `npm ci` and `npm start` run).
 *
 * The V8 heap is capped at 256 MB here and in `npm start` (a command-line flag: V8 sizes its heap
 * when it starts). Uncapped, V8 sizes it for the machine's memory and collects lazily: under load the
 * server's RSS grows past 300 MB, mostly garbage (live data is ~30–60 MB); capped, it peaks ~190 MB.
 *
 * GLIBC_TUNABLES (here and in `npm start`; glibc reads it only when a process starts) pins glibc's
 * mmap threshold at its initial 128 KiB. By default glibc raises the threshold to the size of any
 * large block once freed, so after one password hash (a 16 MiB scrypt buffer) later hashes are
 * allocated from the arena of whichever libuv thread runs them, and each of the four threads keeps
 * its last buffer for good: 64 MiB of RSS held after a few logins, past the server's 250 MB budget.
 * Pinned, a large block is mapped and unmapped each time. Elsewhere than glibc the variable means
 * nothing.
 */
import fs from 'node:fs';

const entry = new URL('../dist/rapport.js', import.meta.url);
if (!fs.existsSync(entry)) {
  process.stderr.write('rapport: dist/rapport.js is missing: run `npm run build` in the checkout (`npm ci` runs it too)\n');
  process.exit(1);
}
// Stack traces point at the TypeScript sources.
process.setSourceMapsEnabled(true);
await import(entry.href);
