/**
 * Setup file of every test file (vitest.config.ts): with the app_id check on (the PostgreSQL runs),
 * a file fails at its end when any statement over a project table did not name its project, in
 * this process or in a server it started as a child process, even where the failing statement's
 * error was caught or answered as a 500.
 */
import { afterAll } from 'vitest';
import { takeAppIdViolations } from '../../src/db/app-id-check.ts';
import { takeSpawnedOutputs } from './process.ts';

const MARK = /^app_id check: .*$/gm;

afterAll(() => {
  const seen = takeAppIdViolations();
  for (const output of takeSpawnedOutputs()) seen.push(...(output.match(MARK) ?? []));
  if (seen.length > 0) {
    throw new Error(
      `statements over project tables without app_id (docs/adr/0018-app-id-on-every-statement.md):\n${[...new Set(seen)].join('\n')}`,
    );
  }
});
