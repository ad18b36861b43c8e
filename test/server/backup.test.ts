// lanes: sqlite postgres
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase } from '../helpers/database.ts';
import { type Spawned, behaviourRecords, freePort, provisionProject, runCli, useProcessDatabase, waitForOk } from '../helpers/process.ts';

const processes = useProcessDatabase();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-backup-test-'));
const others: FreshDatabase[] = [];
afterAll(async () => {
  for (const d of others) await d.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Where a server keeps its files: the SQLite test database's directory, or a directory of its own beside PostgreSQL. */
function withDataDir(env: Record<string, string>, name: string): Record<string, string> {
  if (env.DATA_DIR) return env;
  const dir = path.join(scratch, name);
  fs.mkdirSync(dir, { recursive: true });
  return { ...env, DATA_DIR: dir };
}

async function serve(env: Record<string, string>, port: number): Promise<Spawned> {
  const server = processes.started(runCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' }));
  await waitForOk(`http://127.0.0.1:${port}/healthz`);
  return server;
}

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const run = runCli(args, env);
  const code = await run.exited;
  return { code, out: run.output() };
}

describe('backup and restore', () => {
  it(
    'backs up while records arrive, and a restore elsewhere holds every record acknowledged before the backup',
    { timeout: 120_000 },
    async () => {
      const env = withDataDir(processes.db.env, 'source');
      // A file of the product under DATA_DIR (as uploads and rendered pages are), in a folder.
      const upload = path.join(env.DATA_DIR as string, 'files', 'f1', 'original.bin');
      fs.mkdirSync(path.dirname(upload), { recursive: true });
      const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
      fs.writeFileSync(upload, bytes);

      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const source = await serve(env, port);
      const project = await provisionProject(base, env, '13855560001');
      const created = await project.ingest([{ event_type: 'create', domainType: 'Customer', domainId: 'kept', body: { name: 'Kept' } }]);
      expect(await created.json()).toMatchObject({ status: 1 });

      // Eight producers write one record per request during the backup.
      const acknowledged: string[] = [];
      let stop = false;
      const producer = async (n: number) => {
        for (let i = 0; !stop; i++) {
          const id = `b-${n}-${i}`;
          const res = await project.ingest([
            {
              event_type: 'create',
              domainType: 'BehaviourLog',
              domainId: id,
              body: { customerId: 'kept', action: 'send_message', when: '2026-11-01 10:00:00' },
            },
          ]);
          const answer = (await res.json()) as { status: number; data?: { accepted: number } };
          if (answer.status === 1 && answer.data?.accepted === 1) acknowledged.push(id);
        }
      };
      const producing = Array.from({ length: 8 }, (_, n) => producer(n));
      while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 20));
      const before = [...acknowledged];
      const file = path.join(scratch, 'rapport.backup');
      const made = await cli(['backup', file], env);
      const during = acknowledged.length - before.length;
      stop = true;
      await Promise.all(producing);
      expect(made.code, made.out).toBe(0);
      expect(JSON.parse(made.out.trim())).toMatchObject({ files: 1 });
      expect(during).toBeGreaterThan(0); // records were arriving while it ran
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readdirSync(scratch).filter((f) => f.includes('.work-') || f.endsWith('.partial'))).toEqual([]);
      const original = await behaviourRecords(base, project, 'kept');
      source.child.kill('SIGTERM');
      await source.exited;

      // Into a new database and data directory.
      const target = await freshDatabase();
      others.push(target);
      const restoredEnv = withDataDir(target.env, 'target');
      const restored = await cli(['restore', file], restoredEnv);
      expect(restored.code, restored.out).toBe(0);
      expect(fs.readFileSync(path.join(restoredEnv.DATA_DIR as string, 'files', 'f1', 'original.bin')).equals(bytes)).toBe(true);

      const port2 = await freePort();
      const base2 = `http://127.0.0.1:${port2}`;
      const second = await serve(restoredEnv, port2);
      const copy = await behaviourRecords(base2, project, 'kept'); // the same tokens: the copy holds them too
      expect(before.filter((id) => !copy.has(id))).toEqual([]);
      for (const [id, record] of copy) expect(record).toEqual(original.get(id)); // nothing the source did not hold, and identical
      const detail = await fetch(`${base2}/api/v1.7/customer/kept/detail`, { headers: project.auth });
      expect(await detail.json()).toMatchObject({ status: 1, data: { id: 'kept', name: 'Kept' } });

      // A second restore into the now used database and directory is refused and changes nothing.
      second.child.kill('SIGTERM');
      await second.exited;
      const again = await cli(['restore', file], restoredEnv);
      expect(again.code).toBe(1);
      expect(again.out).toMatch(/DATA_DIR .* holds files|not empty/);
    },
  );

  it('refuses what it cannot do with a clear message and exit 1', { timeout: 120_000 }, async () => {
    const env = withDataDir(processes.db.env, 'refusals');
    const exists = path.join(scratch, 'exists.backup');
    fs.writeFileSync(exists, 'x');
    const over = await cli(['backup', exists], env);
    expect(over.code).toBe(1);
    expect(over.out).toMatch(/exists: a backup never replaces a file/);
    expect(fs.readFileSync(exists, 'utf8')).toBe('x');

    const empty = path.join(scratch, 'empty-target');
    fs.mkdirSync(empty);
    const notBackup = await cli(['restore', exists], { DATA_DIR: empty });
    expect(notBackup.code).toBe(1);
    expect(notBackup.out).toMatch(/not a readable backup/);
    expect(fs.readdirSync(empty)).toEqual([]);

    const missing = await cli(['restore', path.join(scratch, 'nothing.backup')], { DATA_DIR: empty });
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/no backup at/);

    const usage = await cli(['backup'], env);
    expect(usage.code).toBe(2);
  });
});
