import { execFileSync } from 'node:child_process';

/**
 * Vitest's globalSetup: the tests that start `node bin/rapport.js` run the server's build (dist/), so
 * it is brought up to date with the sources first (a fraction of a second; see scripts/build-server.js).
 */
export default function buildServer(): void {
  execFileSync(process.execPath, ['scripts/build-server.js'], { cwd: new URL('../..', import.meta.url), stdio: 'inherit' });
}
