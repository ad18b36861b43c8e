import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { type Plugin, defineConfig } from 'vite';

// The console is served by the server under /console/, on the same origin as the API (src/http/console.ts);
// under `npm run dev` the dev server passes the API's paths on to a server running locally (`npm start`).
const server = 'http://localhost:8080';

/** Smaller files gain little from compression: they are served as they are. */
const COMPRESS_FROM_BYTES = 1024;

/**
 * Writes `<file>.br` (brotli, best quality) and `<file>.gz` (gzip, level 9) beside each script,
 * style sheet, SVG and JSON file of the build's assets and beside index.html, once at build time; the
 * server sends the one the browser accepts (src/http/console.ts), so no request spends CPU on compression.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'rapport-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const assets = path.join(outDir, 'assets');
      if (!fs.existsSync(assets)) return;
      const files = fs
        .readdirSync(assets)
        .filter((name) => /\.(js|css|svg|json)$/.test(name))
        .map((name) => path.join(assets, name));
      for (const file of [...files, path.join(outDir, 'index.html')]) {
        const body = fs.readFileSync(file);
        if (body.length < COMPRESS_FROM_BYTES) continue;
        fs.writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        fs.writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  base: '/console/',
  plugins: [react(), precompress()],
  build: {
    outDir: 'dist',
    sourcemap: true,
    // dist/.vite/manifest.json: the first-load budget test walks the entry's static imports in it.
    manifest: true,
    // ECharts' chunk is large and loaded only with a chart; the first-load budget is checked by test/console/console-budget.test.ts.
    chunkSizeWarningLimit: 1200,
    rolldownOptions: {
      // antd's rc-* packages declare no `sideEffects`, so a module imported for one export (antd's
      // form context takes rc-field-form's provider) would bring the whole package; they have none.
      treeshake: { moduleSideEffects: [{ test: /[\\/]node_modules[\\/](rc-[^\\/]+|@rc-component[\\/][^\\/]+)[\\/]/, sideEffects: false }] },
    },
  },
  server: {
    proxy: { '/healthz': server, '/openapi.json': server, '/docs': server, '/api': server, '/svcuser': server },
  },
});
