import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'console/src/**/*.test.ts'],
    globalSetup: ['test/helpers/build.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each test file gets its own fresh database; files run in parallel on the two cores.
    maxWorkers: 2,
    env: { RAPPORT_INSECURE_FAST_HASH: '1' },
  },
});
