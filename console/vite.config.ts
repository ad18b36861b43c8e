import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is meant to be served by the server, on the same origin as the API; under `npm run dev`
// the dev server passes the API's paths on to a server running locally (`npm start`).
const server = 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: true },
  server: {
    proxy: { '/healthz': server, '/openapi.json': server, '/docs': server, '/api': server, '/svcuser': server },
  },
});
