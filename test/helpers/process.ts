import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { type FreshDatabase, freshDatabase } from './database.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Spawned {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Runs `node bin/rapport.js ...args` from the checkout with the given environment. */
export function runCli(args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, ['bin/rapport.js', ...args], {
    cwd: ROOT,
    // Rate limits off: these tests load the server from one address.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', RAPPORT_INSECURE_FAST_HASH: '1', RATE_LIMITS: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Polls until `url` answers 200, or throws after `ms`. */
export async function waitForOk(url: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A fresh database for a file of tests that run the real process, and the servers they start:
 * `started(server)` records one, and every recorded server is killed before the database is
 * dropped, even when a test timed out.
 */
export function useProcessDatabase(): { readonly db: FreshDatabase; started(server: Spawned): Spawned } {
  let db: FreshDatabase | undefined;
  const servers: Spawned[] = [];
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await db?.drop();
  });
  return {
    get db() {
      if (!db) throw new Error('useProcessDatabase: the database exists once beforeAll has run');
      return db;
    },
    started(server) {
      servers.push(server);
      return server;
    },
  };
}
