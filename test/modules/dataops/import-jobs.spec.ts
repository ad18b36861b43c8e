import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import type { AppContext } from '../../../src/context.ts';
import { BackgroundJobs } from '../../../src/lib/jobs.ts';
import { createLogger } from '../../../src/logger.ts';
import type { Actor } from '../../../src/modules/access/service.ts';
import type { AuditEntry } from '../../../src/modules/audit/service.ts';
import type { CustomerDataOps, ImportItem } from '../../../src/modules/customers/service.ts';
import { type DataOpsServices, createDataOpsServices } from '../../../src/modules/dataops/service.ts';
import { openContext } from '../../../src/runtime.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';

/**
 * The import services on a throwaway SQLite database, with the customers service faked (it takes
 * each batch's rows and refuses a row whose phone is not digits) and the clock faked, so an import's
 * lease runs out when the test moves time on.
 */
const APP = 'app-import-spec';
const LEASE_SECONDS = 30;

interface Fakes {
  batches: ImportItem[][];
  audit: AuditEntry[];
  /** The database is down: every batch fails (each attempt counted in `refused`). */
  down: boolean;
  refused: number;
}

function fakeCustomers(fakes: Fakes): CustomerDataOps {
  const customers = {
    async actingFor(_appId: string, callerId: number, pathUserId: string) {
      return { acting: Number(pathUserId), isManager: callerId === 1 };
    },
    async importAttributes() {
      return [
        { name: 'name', param: 'name', title: 'Name', readonly: false, required: true },
        { name: 'phone', param: 'phone', title: 'Phone', readonly: false, required: false },
      ];
    },
    async importInTransaction(_trx: unknown, _appId: string, items: ImportItem[]) {
      if (fakes.down) {
        fakes.refused += 1;
        throw new Error('the database went away');
      }
      fakes.batches.push(items);
      const problems = items
        .filter((i) => !/^\d+$/.test(String(i.input.phone)))
        .map((i) => ({ row: i.row, code: 'phone_invalid', reason: 'not a phone' }));
      return { created: items.length - problems.length, updated: 0, skipped: 0, problems };
    },
  };
  return customers as unknown as CustomerDataOps;
}

const admin = { app: { id: APP }, userId: 1, isManager: true, role: 'Admin' } as unknown as Actor;

let dir: string;
let ctx: AppContext & { close(): Promise<void> };
let clock: FakeClock;
let jobs: BackgroundJobs;
let fakes: Fakes;
let dataops: DataOpsServices;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-import-spec-'));
  const config = loadConfig({ DATA_DIR: dir, IMPORT_LEASE_SECONDS: String(LEASE_SECONDS), RAPPORT_INSECURE_FAST_HASH: '1' });
  const opened = await openContext(config, createLogger('silent'));
  clock = new FakeClock();
  ctx = { ...opened, clock, close: () => opened.database.close() };
  jobs = new BackgroundJobs(clock, { ticked: () => {}, failed: () => {} });
  fakes = { batches: [], audit: [], down: false, refused: 0 };
  dataops = createDataOpsServices(ctx, {
    customers: fakeCustomers(fakes),
    audit: async (_db, entry) => {
      fakes.audit.push(entry);
    },
    defineJob: (def) => jobs.define(def),
  });
});

afterEach(async () => {
  await jobs.stop();
  await ctx.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Waits (in real time: the job's ticks read and write the database) until `check` holds. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** A CSV upload as the upload route leaves it on disk. */
function upload(name: string, lines: string[]) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return { path: file, filename: name, size: fs.statSync(file).size, tooLarge: false };
}

describe('a member starts an import, and the customer-import job runs it', () => {
  it('records it queued at the clock’s time, runs every row through the customers service, and keeps the refused rows', async () => {
    const incoming = upload('people.csv', ['Name,Phone', 'Ann,1001', 'Bob,nope', 'Cy,1003']);
    const started = await dataops.imports.startImport(admin, { pathUserId: '5', incoming, request: {} });
    expect(started).toMatchObject({ status: 'queued', total: 0, processed: 0 });
    expect(started.createdAt).toBe(clock.format(clock.now()));
    expect(fs.existsSync(incoming.path)).toBe(false);
    expect(fakes.audit).toEqual([expect.objectContaining({ appId: APP, actorId: 1, action: 'customer.import' })]);
    expect(fakes.audit[0]?.detail).toMatchObject({ fileName: 'people.csv', format: 'csv', policy: 'skip', ownerId: 5 });

    // The start poked the job, which was not running: it started and took the import up.
    const ref = { pathUserId: '5', importId: started.id };
    await until(async () => (await dataops.imports.importJob(admin, ref)).status === 'done', 'the import is done');
    expect(await dataops.imports.importJob(admin, ref)).toMatchObject({ status: 'done', total: 3, processed: 3, created: 2, failed: 1 });
    // Rows that name no owner are the path member's; the columns map by their titles.
    expect(fakes.batches.flat().map((i) => i.input)).toEqual([
      { name: 'Ann', phone: '1001', svcUserId: '5' },
      { name: 'Bob', phone: 'nope', svcUserId: '5' },
      { name: 'Cy', phone: '1003', svcUserId: '5' },
    ]);
    const chunks: Buffer[] = [];
    for await (const chunk of await dataops.imports.problemsCsv(admin, ref)) chunks.push(Buffer.from(chunk as string));
    const problems = Buffer.concat(chunks).toString('utf8');
    expect(problems).toBe('\uFEFFName,Phone,reason\r\nBob,nope,phone_invalid: not a phone\r\n');
  });

  it('leaves an import whose batch failed held by its lease, and takes it up once the clock passes the lease', async () => {
    const incoming = upload('later.csv', ['Name,Phone', 'Dee,2001', 'Eve,2002']);
    fakes.down = true;
    const started = await dataops.imports.startImport(admin, { pathUserId: '1', incoming, request: {} });
    const ref = { pathUserId: '1', importId: started.id };
    const job = () => dataops.imports.importJob(admin, ref);
    // Its first batch fails: it stays running, held by its lease.
    await until(async () => (await job()).total === 2 && fakes.refused > 0, 'the first batch failed');
    await new Promise((r) => setTimeout(r, 200));
    const refused = fakes.refused;
    // Nobody takes it up while its lease holds, however often the idle job looks.
    for (let s = 0; s < LEASE_SECONDS - 5; s += 5) {
      await clock.advance(5000);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await job()).toMatchObject({ status: 'running', processed: 0 });
    expect(fakes.refused).toBe(refused);
    // The database is back and the lease runs out: the job's next look takes it up from where it stopped.
    fakes.down = false;
    await until(async () => {
      await clock.advance(5000);
      return (await job()).status === 'done';
    }, 'the import is taken up again');
    expect(await dataops.imports.importJob(admin, ref)).toMatchObject({ status: 'done', processed: 2, created: 2, failed: 0 });
    expect(fakes.batches.flat().map((i) => i.input.name)).toEqual(['Dee', 'Eve']);
  });

  it('refuses a file none of whose columns maps to an attribute, and records nothing', async () => {
    const incoming = upload('other.csv', ['Colour,Size', 'red,9']);
    await expect(dataops.imports.startImport(admin, { pathUserId: '1', incoming, request: {} })).rejects.toMatchObject({
      code: 'import_file_invalid',
    });
    expect(await dataops.imports.recentImports(admin, { pathUserId: '1', limit: 10 })).toEqual([]);
    expect(fakes.audit).toEqual([]);
  });
});

describe('the CLI’s import', () => {
  it('runs in the process, reporting progress after each batch, with the operator as no member', async () => {
    const file = upload('local.csv', ['Name,Phone', 'Fay,3001', 'Gus,x']);
    const seen: string[] = [];
    const job = await dataops.cli.importLocal({
      appId: APP,
      ownerId: 9,
      filePath: file.path,
      request: { dry_run: 'true' },
      onProgress: (j) => seen.push(`${j.status} ${j.processed}/${j.total}`),
    });
    expect(job).toMatchObject({ status: 'done', total: 2, processed: 2, created: 1, failed: 1 });
    expect(seen).toEqual(['running 2/2', 'done 2/2']);
    // The operator's file is copied, not moved.
    expect(fs.existsSync(file.path)).toBe(true);
    expect(fakes.audit[0]).toMatchObject({ actorId: null, detail: { dryRun: true, ownerId: 9 } });
  });
});

describe('half-received uploads', () => {
  it('are removed once an hour old by the clock, and no others', async () => {
    const incoming = dataops.imports.upload.dir;
    fs.mkdirSync(incoming, { recursive: true });
    const stale = path.join(incoming, 'stale.part');
    const fresh = path.join(incoming, 'fresh.part');
    fs.writeFileSync(stale, 'half');
    fs.writeFileSync(fresh, 'arriving');
    const mtime = (file: string, at: number) => fs.utimesSync(file, new Date(at), new Date(at));
    mtime(stale, clock.now() - 2 * 3600_000);
    mtime(fresh, clock.now() - 60_000);
    await dataops.imports.sweepIncoming();
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
  });
});
