import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is served by the server under /console/, on the same origin as the API (src/http/console.ts);
// under `npm run dev` the dev server passes the API's paths on to a server running locally (`npm start`).
const server = 'http://localhost:8080';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    sourcemap: true,
    // dist/.vite/manifest.json: the first-load budget test walks the entry's static imports in it.
    manifest: true,
    // ECharts' chunk is large and loaded only with a chart; the first-load budget is checked by test/console/console-budget.test.ts.
    chunkSizeWarningLimit: 1200,
  },
  server: {
    proxy: { '/healthz': server, '/openapi.json': server, '/docs': server, '/api': server, '/svcuser': server },
  },
});
