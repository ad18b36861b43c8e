import { defineConfig } from 'vitest/config';

/**
 * Three projects. `unit`: specs (`*.spec.ts`) of services and helpers with fake repositories and a fake
 * clock, and the console's own tests: no server process, no database, no build (`npm run test:unit`).
 * `integration`: everything over HTTP against a real database (`*.test.ts`), each file with its own.
 * `abuse`: test/abuse/, alone after the others. `npm test` runs all three.
 */
export default defineConfig({
  test: {
    // Ceilings for a hang, not timings: with the SQLite and PostgreSQL lanes side by side on two cores, a
    // test that starts server processes can wait long for the processor.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files run in parallel on the two cores.
    maxWorkers: 2,
    env: {
      RAPPORT_INSECURE_FAST_HASH: '1',
      // On PostgreSQL every statement over a project table must name its project (src/db/app-id-check.ts).
      ...(process.env.RAPPORT_TEST_DB === 'postgres' ? { RAPPORT_APP_ID_CHECK: process.env.RAPPORT_APP_ID_CHECK ?? '1' } : {}),
    },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.spec.ts', 'console/src/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/abuse/**'],
          // The files of a worker share its module cache: src/ is loaded once per worker, not once per
          // file (half the suite's CPU time went to loading it). Each file still builds its own app on its
          // own database; what a file changes outside them (process.env, timers) it restores itself.
          isolate: false,
          globalSetup: ['test/helpers/build.ts'],
          // Fails a file whose statements broke the app_id rule (on PostgreSQL runs, where the check is on).
          setupFiles: ['test/helpers/app-id-check.ts'],
        },
      },
      {
        // The abuse suite measures another user's latency while a server is attacked: its files run one
        // at a time, after the others, so no other test's load is measured with the attack's.
        extends: true,
        test: {
          name: 'abuse',
          include: ['test/abuse/**/*.test.ts'],
          globalSetup: ['test/helpers/build.ts'],
          setupFiles: ['test/helpers/app-id-check.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
