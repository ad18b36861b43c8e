import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { AppError } from '../../http/errors.ts';
import type { JobDefinition, JobRun } from '../../lib/jobs.ts';
import type { AccessService, Actor } from '../access/service.ts';
import type { CampaignAdditions } from '../campaigns/service.ts';
import type { BulkOutcome, CustomerBulk } from '../customers/service.ts';
import type { CustomerExport } from '../dataops/service.ts';
import type { SequenceAutomation } from '../sequences/service.ts';
import { BULK_BATCH, BULK_POLL_MS, ENROLL_BATCH, EXPORT_KEEP_MS } from './limits.ts';
import { type BulkFailureItem, type BulkOptions, type BulkRow, type FailureSummary, addFailures } from './mapper.ts';
import { bulkRepository as repo } from './repository.ts';

export interface BulkRunnerDeps {
  access: Pick<AccessService, 'membership'>;
  customers: CustomerBulk;
  campaigns: Pick<CampaignAdditions, 'addInTransaction'>;
  sequences: Pick<SequenceAutomation, 'enrollInTransaction'>;
  exports: Pick<CustomerExport, 'exportSelected'>;
}

class LeaseLost extends Error {}

/** The batch's customers, each failed for the same reason (the whole step was refused). */
const allFailed = (ids: string[], err: AppError): BulkFailureItem[] =>
  ids.map((customerId) => ({ customerId, code: err.code, reason: err.message }));

/**
 * Runs bulk customer jobs (docs/customers.md "Bulk actions", ADR 0033): the background job
 * `customer-bulk` takes waiting jobs (queued, or left running by a stopped process) one at a time
 * per process and works through their frozen customers a batch at a time, each batch's changes
 * (through the customers and campaigns services) and the job's progress in one transaction, so a
 * resumed job repeats and skips no customer. The job acts as the member who asked, their role read
 * again for every batch. An export writes its file in one go and is started again from the top if
 * its process stopped.
 */
export function createBulkRunner(ctx: AppContext, deps: BulkRunnerDeps) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger } = ctx;
  const dir = path.join(ctx.config.dataDir, 'bulk');
  // Held by the imports' lease (IMPORT_LEASE_SECONDS): a job of a stopped process is taken up once it runs out.
  const BULK_LEASE_MS = ctx.config.imports.leaseSeconds * 1000;

  async function claimNext(): Promise<BulkRow | null> {
    const now = clock.now();
    for (const c of await repo.waiting(db, now, 10)) {
      if (await repo.claim(db, c.app_id, c.id, now, now + BULK_LEASE_MS)) return (await repo.find(db, c.app_id, c.id)) ?? null;
    }
    return null;
  }

  /** One batch of a changing action, in the caller's transaction. */
  function step(trx: Kysely<Database>, actor: Actor, job: BulkRow, ids: string[]): Promise<BulkOutcome> {
    const opts = JSON.parse(job.options) as BulkOptions;
    const now = clock.now();
    switch (job.action) {
      case 'assign':
        return deps.customers.assignInTransaction(trx, actor, { ids, now, target: Number(opts.targetSvcUserId) });
      case 'group':
        return deps.customers.groupInTransaction(trx, actor, { ids, now, groupId: String(opts.groupId) });
      case 'delete':
        return deps.customers.removeInTransaction(trx, actor, { ids, now });
      case 'campaign':
        return deps.campaigns.addInTransaction(trx, actor, { postId: String(opts.campaignId), customerIds: ids, now });
      case 'enroll':
        return deps.sequences.enrollInTransaction(trx, actor, { sequenceId: String(opts.sequenceId), ids, now });
      default:
        throw new Error(`bulk: unknown action ${job.action}`);
    }
  }

  /** Commits a batch's outcome with the job's progress (and a new lease); the job as it stands after it. */
  async function advance(trx: Kysely<Database>, job: BulkRow, count: number, outcome: BulkOutcome): Promise<BulkRow> {
    const summary = addFailures(JSON.parse(job.failures) as FailureSummary, outcome.failures);
    const patch = {
      processed: Number(job.processed) + count,
      succeeded: Number(job.succeeded) + outcome.done.length,
      failed: Number(job.failed) + outcome.failures.length,
      failures: JSON.stringify(summary),
      lease_until: clock.now() + BULK_LEASE_MS,
      updated_at: clock.now(),
    };
    if (!(await repo.advance(trx, job.app_id, job.id, job.lease_until, patch))) throw new LeaseLost();
    return { ...job, ...patch };
  }

  /** One batch: its changes and the job's progress in one transaction; a step refused as a whole fails each of its customers. */
  async function runBatch(actor: Actor, job: BulkRow, ids: string[]): Promise<BulkRow> {
    try {
      return await db.transaction().execute(async (trx) => advance(trx, job, ids.length, await step(trx, actor, job, ids)));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // Refused as a whole (the group or campaign gone, the target no longer a member): nothing of the batch was written.
      return db.transaction().execute((trx) => advance(trx, job, ids.length, { done: [], failures: allFailed(ids, err) }));
    }
  }

  /** Works through the job's customers after those processed; null when the run stopped early. */
  async function changeAll(actor: Actor, claimed: BulkRow, run: JobRun): Promise<BulkRow | null> {
    let job = claimed;
    const ids = JSON.parse(job.customer_ids) as string[];
    const size = job.action === 'enroll' ? ENROLL_BATCH : BULK_BATCH;
    while (Number(job.processed) < ids.length) {
      if (run.stopping) return null;
      job = await runBatch(actor, job, ids.slice(Number(job.processed), Number(job.processed) + size));
      // Requests waiting meanwhile are served between batches.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return job;
  }

  /** An export: the customers the actor may export classified, their file written, the job's counts in one update. */
  async function exportAll(actor: Actor, job: BulkRow): Promise<BulkRow | null> {
    const ids = JSON.parse(job.customer_ids) as string[];
    const format = (JSON.parse(job.options) as BulkOptions).format ?? 'csv';
    let outcome: BulkOutcome = { done: [], failures: [] };
    for (let i = 0; i < ids.length; i += BULK_BATCH) {
      const part = await deps.customers.visibleInTransaction(db, actor, ids.slice(i, i + BULK_BATCH));
      outcome = { done: [...outcome.done, ...part.done], failures: [...outcome.failures, ...part.failures] };
    }
    await fsp.mkdir(dir, { recursive: true });
    const file = path.join(dir, `${job.id}.${format}`);
    await pipeline(await deps.exports.exportSelected(actor, { ids: outcome.done, format }), fs.createWriteStream(file));
    return db.transaction().execute(async (trx) => {
      const next = await advance(trx, job, ids.length, outcome);
      await repo.update(trx, job.app_id, job.id, { result_path: file });
      return { ...next, result_path: file };
    });
  }

  async function finish(job: BulkRow, end: { status: 'done' | 'failed'; error: string | null }): Promise<void> {
    await repo.update(db, job.app_id, job.id, { ...end, lease_until: null, updated_at: clock.now() });
  }

  /** Runs a claimed job from its last batch to its end (or until the run stops, or its lease is lost). */
  async function runJob(job: BulkRow, run: JobRun): Promise<void> {
    let actor: Actor;
    try {
      actor = await deps.access.membership(job.app_id, Number(job.created_by));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await finish(job, { status: 'failed', error: 'The member who asked for it is no longer a member of the project' });
      return;
    }
    try {
      const ended = job.action === 'export' ? await exportAll(actor, job) : await changeAll(actor, job, run);
      if (ended === null) return;
      await finish(ended, { status: 'done', error: null });
      logger.info({ appId: job.app_id, bulkId: job.id, action: job.action, total: job.total }, 'bulk: done');
    } catch (err) {
      if (err instanceof LeaseLost) return;
      if (err instanceof AppError) {
        await finish(job, { status: 'failed', error: err.message });
        return;
      }
      // A database fault: the job stays running, and is taken up again once its lease runs out.
      logger.error({ err, appId: job.app_id, bulkId: job.id }, 'bulk: a batch failed; the job will be resumed');
    }
  }

  /** Removes the files of exports finished more than EXPORT_KEEP_MS ago. */
  async function sweepFiles(): Promise<number> {
    const old = await repo.expiredFiles(db, clock.now() - EXPORT_KEEP_MS, 100);
    for (const r of old) {
      if (r.result_path !== null) await fsp.rm(r.result_path, { force: true });
      await repo.update(db, r.app_id, r.id, { result_path: null });
    }
    return old.length;
  }

  const job: JobDefinition = {
    name: 'customer-bulk',
    idleMs: BULK_POLL_MS,
    startOnPoke: true,
    async tick(run) {
      const claimed = await claimNext();
      if (claimed === null) return (await sweepFiles()) > 0 ? 'worked' : 'idle';
      await runJob(claimed, run);
      return 'worked';
    },
  };

  return { job };
}
