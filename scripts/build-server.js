/**
 * `npm run build:server`: bundles the server (src/cli/index.ts and every module of src/ it imports)
 * into dist/rapport.js with a source map, and copies the worker threads' files (the SQLite read worker,
 * the page renderer: plain JavaScript) beside it. Packages stay external: they load from node_modules.
 *
 * esbuild rather than tsc: the bundle takes a fraction of a second whether or not anything changed, so
 * `npm start`, the tests and the benches build every time and never run stale code (tsc took ~35 s cold
 * here); the types are checked by `npm run typecheck`. One bundle is also the form the memory and
 * speed figures in docs/performance.md were measured on.
 *
 * A file is written only when its content changed, through a rename, so a process starting meanwhile
 * (cluster workers, parallel tests) never reads half a file.
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { rapport: 'src/cli/index.ts' },
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  // The map points at src/, which ships with the server.
  sourcesContent: false,
  write: false,
  logLevel: 'warning',
});

const files = result.outputFiles.map((f) => ({ file: f.path, contents: Buffer.from(f.contents) }));
// Loaded as new URL('./sqlite-read-worker.js', import.meta.url) from the bundle (src/db/sqlite-worker.ts).
files.push({ file: path.join(dist, 'sqlite-read-worker.js'), contents: fs.readFileSync(path.join(root, 'src/db/sqlite-read-worker.js')) });
// Loaded as new URL('./page-render-worker.js', import.meta.url) from the bundle (src/lib/page-renderer.ts).
files.push({ file: path.join(dist, 'page-render-worker.js'), contents: fs.readFileSync(path.join(root, 'src/lib/page-render-worker.js')) });

fs.mkdirSync(dist, { recursive: true });
for (const { file, contents } of files) {
  if (fs.existsSync(file) && fs.readFileSync(file).equals(contents)) continue;
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}
