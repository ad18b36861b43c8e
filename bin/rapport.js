#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 node --max-old-space-size=256
/**
 * Runs the TypeScript sources with no build step to remember: at every start they are bundled by
 * esbuild (~50 ms) into .build/rapport-<hash>.mjs and that file is imported. Running through tsx
 * instead kept its module loader thread alive in the server process, ~75 MB of the 250 MB RSS
 * budget under load, and cost CPU per request (issue 7). The bundle is named by its content and
 * written with an atomic rename, so cluster workers and parallel test processes can bundle at
 * once. If bundling fails for any reason, the sources run through tsx as before.
 *
 * The V8 heap is capped at 256 MB here and in `npm start` (a command-line flag: V8 sizes its heap
 * when it starts). Uncapped, V8 sized it for the machine's 24 GB and collected lazily: under load
 * the server's RSS grew to 300+ MB of garbage (live data stays ~30–60 MB); capped, it peaks ~190 MB.
 *
 * GLIBC_TUNABLES (here and in `npm start`; glibc reads it only when a process starts) pins glibc's
 * mmap threshold at its initial 128 KiB. By default glibc raises the threshold to the size of any
 * large block once freed, so after one password hash (a 16 MiB scrypt buffer) later hashes are
 * allocated from the arena of whichever libuv thread runs them, and each of the four threads kept
 * its last buffer for good: 64 MiB (128 MiB at the earlier scrypt cost) of RSS held after a few
 * logins, which put the server past its 250 MB budget (issue 7). Pinned, a large block is mapped
 * and unmapped each time. Elsewhere than glibc the variable means nothing.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function bundle() {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(root, 'src/cli/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const dir = path.join(root, '.build');
  const file = path.join(dir, `rapport-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
    // Bundles of older sources: a day is far longer than any start that may still import one.
    for (const old of fs.readdirSync(dir)) {
      const p = path.join(dir, old);
      if (p !== file && Date.now() - fs.statSync(p).mtimeMs > 86_400_000) fs.rmSync(p, { force: true });
    }
  }
  return file;
}

let entry = null;
try {
  entry = await bundle();
} catch {
  entry = null;
}
if (entry) {
  // Stack traces point at the TypeScript sources.
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(entry).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/index.ts');
}
