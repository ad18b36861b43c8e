/**
 * `npm run build:server`: bundles the server (src/cli/index.ts and every module of src/ it imports)
 * into dist/rapport.js with a source map, and copies the worker threads' files (the SQLite read worker,
 * the page renderer and the watermark it draws: plain JavaScript) beside it. Packages stay external: they load from node_modules.
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
import { createHash } from 'node:crypto';
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
// Imported by the page renderer's child as './watermark.js'.
files.push({ file: path.join(dist, 'watermark.js'), contents: fs.readFileSync(path.join(root, 'src/lib/watermark.js')) });

// The share-link viewer's script (viewer/src): one minified IIFE for browsers, served under a name
// with its content's hash (immutable); dist/viewer/manifest.json names the current one.
const browserScript = (entry) =>
  esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2019', 'chrome80', 'firefox78', 'safari14.1', 'ios14.5'],
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  });
const viewer = await browserScript('viewer/src/viewer.ts');
const script = Buffer.from(viewer.outputFiles[0].contents);
const hash = createHash('sha256').update(script).digest('hex').slice(0, 16);
const viewerDir = path.join(dist, 'viewer');
fs.mkdirSync(viewerDir, { recursive: true });
files.push({ file: path.join(viewerDir, `viewer.${hash}.js`), contents: script });
// The site snippet (viewer/src/site.ts, docs/site-tracking.md): served as /t.js, its hash the ETag.
const siteScript = Buffer.from((await browserScript('viewer/src/site.ts')).outputFiles[0].contents);
const siteHash = createHash('sha256').update(siteScript).digest('hex').slice(0, 16);
files.push({ file: path.join(viewerDir, `site.${siteHash}.js`), contents: siteScript });
files.push({
  file: path.join(viewerDir, 'manifest.json'),
  contents: Buffer.from(`${JSON.stringify({ script: `viewer.${hash}.js`, site: `site.${siteHash}.js` })}\n`),
});

fs.mkdirSync(dist, { recursive: true });
for (const { file, contents } of files) {
  if (fs.existsSync(file) && fs.readFileSync(file).equals(contents)) continue;
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}
// Earlier builds' viewer scripts: only the current one is served.
for (const name of fs.readdirSync(viewerDir)) {
  if (/^viewer\.[0-9a-f]{16}\.js$/.test(name) && name !== `viewer.${hash}.js`) fs.rmSync(path.join(viewerDir, name), { force: true });
  if (/^site\.[0-9a-f]{16}\.js$/.test(name) && name !== `site.${siteHash}.js`) fs.rmSync(path.join(viewerDir, name), { force: true });
}
