/**
 * How the bench starts the real server: as `npm start` does (package.json), so it measures what an
 * operator runs. GLIBC_TUNABLES pins glibc's mmap threshold (see bin/rapport.js).
 */
import { type ChildProcess, type StdioOptions, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The server's node flags as `npm start` has them; extra flags go after these, so a later one overrides.
 * BENCH_NODE_FLAGS adds flags to every server a bench script starts (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * to profile the viewer's or the renderer's server, which `--node-flags` of npm run bench does not reach).
 */
export const SERVER_FLAGS = ['--max-old-space-size=256', ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
export const SERVER_ARGS = ['bin/rapport.js', 'serve'];
/**
 * As `npm start` has it, but without rate limits (the bench loads the server from one address with a
 * few tokens) and without the daily quota of anonymous site records (its site scenario stores more).
 */
export const SERVER_ENV = { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072', RATE_LIMITS: 'off', SITE_ANONYMOUS_DAILY_CAP: '0' };

const ROOT = path.resolve(import.meta.dirname, '..');

/** Brings the server's build (dist/, what bin/rapport.js runs) up to date with the sources, so a bench never measures stale code. */
export function buildServer(): void {
  execFileSync(process.execPath, ['scripts/build-server.js'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * Starts the server as `npm start` does: SERVER_FLAGS then `nodeFlags`, from the repository's root, with
 * `env` over SERVER_ENV over this process's environment.
 */
export function spawnServer(env: Record<string, string>, options: { nodeFlags?: string[]; stdio: StdioOptions }): ChildProcess {
  return spawn(process.execPath, [...SERVER_FLAGS, ...(options.nodeFlags ?? []), ...SERVER_ARGS], {
    cwd: ROOT,
    env: { ...process.env, ...SERVER_ENV, ...env },
    stdio: options.stdio,
  });
}
