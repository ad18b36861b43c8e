import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { JobDefinition, JobRun } from '../../lib/jobs.ts';
import type { CustomerDataOps, ImportItem } from '../customers/service.ts';
import type { ImportJobOptions, ImportRow } from './mapper.ts';
import { UnreadableFile, countDataRows, fileRows } from './reader.ts';
import { createImportsRepository } from './repository.ts';
import { readLimitsOf } from './uploads.ts';

/** Rows per import batch: one transaction each (customers, counters and problems together). */
export const IMPORT_BATCH = 2000;
/** Characters of a batch's cells: a batch of long rows is written sooner, so it never holds more than this. */
const BATCH_CHARS = 8 * 1024 * 1024;
/** How often an idle importer looks for imports to run (queued elsewhere, or left by a stopped process). */
export const IMPORT_POLL_MS = 5000;

/** Rows of the file read but not yet written, with their row numbers. */
type Batch = { cells: string[]; row: number }[];

/** Hears a run's progress: the job after each batch, and once it is done or failed. */
export type ImportProgress = (job: ImportRow) => void;

class LeaseLost extends Error {}

/**
 * Runs customer imports (docs/data-operations.md, ADR 0025): the background job `customer-import`
 * takes waiting imports (queued, or left running by a stopped process) one at a time per process and
 * runs them a batch at a time, each batch's customers (written by the customers service's import
 * path), counters and failed rows in one transaction, so a resumed import repeats and loses no row.
 * The CLI runs its own import here too, without the job.
 */
export function createImportRunner(ctx: AppContext, deps: { customers: CustomerDataOps }) {
  const { customers } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger } = ctx;
  const repo = createImportsRepository(ctx.database.features);
  const leaseMs = ctx.config.imports.leaseSeconds * 1000;
  const readLimits = readLimitsOf(ctx.config.imports);
  /** Imports this process cannot run (their file is on another server's disk). */
  const elsewhere = new Set<string>();

  async function claimNext(): Promise<ImportRow | null> {
    const now = clock.now();
    for (const c of await repo.waiting(db, now, 10)) {
      if (elsewhere.has(c.id)) continue;
      const job = await repo.find(db, c.app_id, c.id);
      if (!job) continue;
      if (!fs.existsSync(job.file_path)) {
        elsewhere.add(job.id);
        continue;
      }
      if (await repo.claim(db, c.app_id, c.id, now, now + leaseMs)) return (await repo.find(db, c.app_id, c.id)) ?? null;
    }
    return null;
  }

  /**
   * Batches commit through the database's group commit, one batch a group: on SQLite its WAL is
   * fsynced off the event loop (src/db), and the batch is acknowledged only once it is durable.
   */
  const batchWrites = ctx.database.commitGroup<(trx: Kysely<Database>) => Promise<void>>(
    async (trx, jobs) => {
      for (const write of jobs) await write(trx);
    },
    { maxRecords: IMPORT_BATCH, maxWaitMs: 0, concurrency: 1 },
  );

  /** A fresh job's data rows, counted (and, over IMPORT_MAX_ROWS, refused) before a row is written; null when it is no longer held here. */
  async function counted(job: ImportRow, opts: ImportJobOptions, run: JobRun): Promise<ImportRow | null> {
    if (Number(job.total) !== 0 || Number(job.processed) !== 0) return job;
    const total = Math.max(0, await countDataRows(job.file_path, job.format as 'csv' | 'xlsx', opts.encoding, readLimits));
    if (run.stopping) return null;
    const lease = clock.now() + leaseMs;
    if (!(await repo.advance(db, job.app_id, job.id, job.lease_until, { total, lease_until: lease, updated_at: clock.now() }))) return null;
    return { ...job, total, lease_until: lease };
  }

  /**
   * Reads the file's rows after those processed and writes them a batch at a time; the job as it
   * stands after its last batch, or null when the run stopped early (the job stopping, the lease lost).
   */
  async function writeRows(claimed: ImportRow, opts: ImportJobOptions, run: JobRun, progress?: ImportProgress): Promise<ImportRow | null> {
    let job = claimed;
    let rowNumber = 0;
    let batch: Batch = [];
    let batchChars = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      job = await commitBatch(job, opts, batch);
      batch = [];
      batchChars = 0;
      progress?.(job);
      // Requests waiting meanwhile are served between batches.
      await new Promise<void>((resolve) => setImmediate(resolve));
    };
    let header = true;
    for await (const cells of fileRows(job.file_path, job.format as 'csv' | 'xlsx', opts.encoding, readLimits)) {
      if (header) {
        header = false;
        continue;
      }
      rowNumber += 1;
      if (rowNumber <= Number(job.processed)) continue;
      batch.push({ cells, row: rowNumber });
      for (const c of cells) batchChars += c.length;
      if (batch.length >= IMPORT_BATCH || batchChars >= BATCH_CHARS) {
        await flush();
        if (run.stopping) return null;
      }
    }
    await flush();
    return job;
  }

  /** Runs a claimed import from its last batch to its end (or until the run stops, or its lease is lost). */
  async function runJob(claimed: ImportRow, run: JobRun, progress?: ImportProgress): Promise<void> {
    let job = claimed;
    const opts = JSON.parse(job.options) as ImportJobOptions;
    const started = clock.now();
    try {
      const fresh = await counted(job, opts, run);
      if (fresh === null) return;
      job = fresh;
      const written = await writeRows(job, opts, run, progress);
      if (written === null) return;
      job = written;
      await finish(job, { status: 'done', error: null }, progress);
      logger.info({ appId: job.app_id, importId: job.id, rows: job.processed, ms: clock.now() - started }, 'imports: done');
    } catch (err) {
      if (err instanceof LeaseLost) return;
      if (err instanceof UnreadableFile) {
        await finish(job, { status: 'failed', error: err.message }, progress);
        return;
      }
      // A database fault: the job stays running, and is taken up again once its lease runs out.
      logger.error({ err, appId: job.app_id, importId: job.id }, 'imports: a batch failed; the import will be resumed');
    }
  }

  async function finish(
    job: ImportRow,
    end: { status: 'done' | 'failed'; error: string | null },
    progress?: ImportProgress,
  ): Promise<void> {
    await repo.update(db, job.app_id, job.id, { ...end, lease_until: null, updated_at: clock.now() });
    await fsp.rm(job.file_path, { force: true });
    progress?.({ ...job, ...end });
  }

  /** A batch's rows as the customers service's import items: the mapped cells, owned by the job's owner unless they name one. */
  function itemsOf(job: ImportRow, opts: ImportJobOptions, batch: Batch): ImportItem[] {
    return batch.map(({ cells, row }) => {
      const input: Record<string, unknown> = {};
      opts.columns.forEach((attribute, i) => {
        if (attribute !== null && cells[i] !== undefined && cells[i] !== '') input[attribute] = cells[i];
      });
      if (input.svcUserId === undefined) input.svcUserId = String(job.owner_id);
      return { input, row };
    });
  }

  /** One batch: its customers, the job's counters and lease, and its failed rows, in one transaction. */
  async function commitBatch(job: ImportRow, opts: ImportJobOptions, batch: Batch): Promise<ImportRow> {
    const items = itemsOf(job, opts, batch);
    const now = clock.now();
    let next: ImportRow | undefined;
    await batchWrites.submit(async (trx) => {
      const outcome = await customers.importInTransaction(trx, job.app_id, items, {
        ownerId: Number(job.owner_id),
        mayAssignOthers: opts.mayAssignOthers,
        // A Sales member's import matches only their own customers (the ones they can read).
        matchOwnerId: opts.mayAssignOthers ? null : Number(job.owner_id),
        groupId: opts.groupId,
        policy: opts.policy,
        dryRun: opts.dryRun,
        now,
      });
      const cellsOf = new Map(batch.map((b) => [b.row, b.cells]));
      await repo.insertProblems(
        trx,
        outcome.problems.map((p) => ({
          app_id: job.app_id,
          import_id: job.id,
          row_number: p.row,
          cells: JSON.stringify(cellsOf.get(p.row) ?? []),
          reason: `${p.code}: ${p.reason}`,
        })),
      );
      const counters = {
        processed: Number(job.processed) + batch.length,
        created: Number(job.created) + outcome.created,
        updated: Number(job.updated) + outcome.updated,
        skipped: Number(job.skipped) + outcome.skipped,
        failed: Number(job.failed) + outcome.problems.length,
        lease_until: clock.now() + leaseMs,
        updated_at: now,
      };
      if (!(await repo.advance(trx, job.app_id, job.id, job.lease_until, counters))) throw new LeaseLost();
      next = { ...job, ...counters };
    }, batch.length);
    return next as ImportRow;
  }

  /** The background job: one import at a time per process; an upload made here starts it without a server's start. */
  const job: JobDefinition = {
    name: 'customer-import',
    idleMs: IMPORT_POLL_MS,
    startOnPoke: true,
    async tick(run) {
      const claimed = await claimNext();
      if (claimed === null) return 'idle';
      await runJob(claimed, run);
      return 'worked';
    },
  };

  return {
    job,
    /** Runs an import held here (the CLI's, recorded running with its lease) to its end, reporting its progress. */
    run(row: ImportRow, progress: ImportProgress): Promise<void> {
      return runJob(row, { stopping: false }, progress);
    },
  };
}

export type ImportRunner = ReturnType<typeof createImportRunner>;
