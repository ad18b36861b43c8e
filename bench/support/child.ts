/** Bench scripts run as child processes of another bench script (`npm run bench`, bench/run.ts). */
import { type ChildProcess, type ForkOptions, fork, spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Runs `node --import tsx <script> <args>` from the repository's root with LOG_LEVEL=warn, its stderr
 * passed through, and resolves with the JSON object its stdout carries from its first `{` (a script's
 * figures); rejects when it exits other than 0.
 */
export async function runScript<T>(script: string, args: string[]): Promise<T> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`${script} exited ${code}`))));
  });
  return JSON.parse(out.slice(out.indexOf('{'))) as T;
}

/** Forks `script` (a path from the repository's root) through tsx, with an IPC channel. */
export function forkScript(script: string, options: ForkOptions = {}): ChildProcess {
  return fork(path.join(ROOT, script), [], { execArgv: ['--import', 'tsx'], ...options });
}

/**
 * Runs a load generator (bench/drive.ts, bench/load.ts) as a fresh child process (drive.ts says
 * why): waits for it to be ready, sends it `message`, and returns its one reply.
 */
export async function askScript<T>(script: string, message: unknown): Promise<T> {
  const child = forkScript(script, { stdio: 'inherit' });
  try {
    const next = () =>
      new Promise<unknown>((resolve, reject) => {
        child.once('message', resolve);
        child.once('exit', (code) => reject(new Error(`the load generator exited (${code})`)));
      });
    await next();
    const replied = next();
    child.send(message as object);
    const reply = (await replied) as T | { error: string };
    if (typeof reply === 'object' && reply !== null && 'error' in reply) throw new Error(`autocannon: ${reply.error}`);
    return reply as T;
  } finally {
    child.kill('SIGTERM');
  }
}
