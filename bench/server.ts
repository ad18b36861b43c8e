/**
 * How the benches start the real server: as `npm start` does (package.json), so they measure what an
 * operator runs. GLIBC_TUNABLES pins glibc's mmap threshold (see bin/rapport.js).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Dataset } from './scenarios.ts';

/** The server's node flags as `npm start` has them; extra flags go after these, so a later one overrides. */
export const SERVER_FLAGS = ['--max-old-space-size=256'];
export const SERVER_ARGS = ['bin/rapport.js', 'serve'];
export const SERVER_ENV = { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' };

const ROOT = path.resolve(import.meta.dirname, '..');

/** Brings the server's build (dist/, what bin/rapport.js runs) up to date with the sources, so a bench never measures stale code. */
export function buildServer(): void {
  execFileSync(process.execPath, ['scripts/build-server.js'], { cwd: ROOT, stdio: 'inherit' });
}

/** A dataset kept by `npm run bench -- --keep` (its database settings and what the scenarios ask for). */
export interface KeptDataset {
  env: Record<string, string>;
  dataset: Dataset;
}

/** The kept dataset of this database and size, or an error saying how to make one. */
export function keptDataset(db: string, size: string): KeptDataset {
  const file = path.join(ROOT, '.bench', `dataset-${db}-${size}.json`);
  if (!fs.existsSync(file)) throw new Error(`no kept ${db} ${size} dataset: run npm run bench -- --db ${db} --size ${size} --keep first`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as KeptDataset;
}

/**
 * Starts the real server on a kept dataset (relay off, warnings only, a random port) with extra node
 * flags before the script (e.g. --cpu-prof), and waits until it answers /healthz.
 */
export async function startServer(env: Record<string, string>, nodeFlags: string[] = []): Promise<{ server: ChildProcess; base: string }> {
  buildServer();
  const port = 4600 + Math.floor(Math.random() * 300);
  const server = spawn(process.execPath, [...SERVER_FLAGS, ...nodeFlags, ...SERVER_ARGS], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...SERVER_ENV,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RAPPORT_EMBEDDED_RELAY: 'false',
    },
    stdio: 'inherit',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      if (i > 150) throw new Error('the server never answered');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { server, base };
}
