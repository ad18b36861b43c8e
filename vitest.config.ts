import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'console/src/**/*.test.ts'],
    globalSetup: ['test/helpers/build.ts'],
    // Fails a file whose statements broke the app_id rule (on PostgreSQL runs, where the check is on).
    setupFiles: ['test/helpers/app-id-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each test file gets its own fresh database; files run in parallel on the two cores.
    maxWorkers: 2,
    // On PostgreSQL every statement over a project table must name its project (src/db/app-id-check.ts).
    env: {
      RAPPORT_INSECURE_FAST_HASH: '1',
      ...(process.env.RAPPORT_TEST_DB === 'postgres' ? { RAPPORT_APP_ID_CHECK: process.env.RAPPORT_APP_ID_CHECK ?? '1' } : {}),
    },
  },
});
