import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { badRequest, failure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { CustomerDataOps, CustomerFilter, CustomerScope, DuplicatePolicy, ImportItem } from '../customers/service.ts';
import { BOM, csvLine, neutralized } from './csv.ts';
import { type ImportJobOptions, type ImportJobResponse, type ImportRow, toImportJob } from './mapper.ts';
import { mapColumns } from './mapping.ts';
import type { ReadLimits } from './limits.ts';
import { UnreadableFile, countDataRows, detectEncoding, fileRows, firstRows, formatOf, isKnownEncoding } from './reader.ts';
import { createImportsRepository } from './repository.ts';
import type { DefineJob } from '../../lib/jobs.ts';

/** A file an upload brought (src/http/upload.ts gives this shape). */
export interface IncomingFile {
  path: string;
  filename: string;
  size: number;
  tooLarge: boolean;
}

/** What a caller sends with an import besides the file. */
export interface ImportRequest {
  /** JSON object: header (or column number) → attribute name, "" to ignore the column. */
  mapping?: string | undefined;
  group_id?: string | undefined;
  /** The owner of rows that name none (default: the acting member). */
  svc_user_id?: number | undefined;
  duplicate_policy?: string | undefined;
  dry_run?: string | boolean | undefined;
  encoding?: string | undefined;
}

export type ExportFormat = 'csv' | 'xlsx';

/** Rows per import batch: one transaction each (customers, counters and problems together). */
export const IMPORT_BATCH = 2000;
/** Characters of a batch's cells: a batch of long rows is written sooner, so it never holds more than this. */
const BATCH_CHARS = 8 * 1024 * 1024;
/** Rows per export page (a primary-key walk). */
const EXPORT_PAGE = 1000;
const POLL_MS = 5000;
/** An incoming upload this old was left by a process that stopped while receiving it. */
const INCOMING_MAX_AGE_MS = 3600_000;
/** Data rows a preview shows. */
const PREVIEW_ROWS = 3;
const POLICIES: readonly DuplicatePolicy[] = ['skip', 'update', 'merge'];

const importNotFound = () => failure('import_not_found');
const invalidFile = (detail: string) => failure('import_file_invalid', detail);

function truthy(v: string | boolean | undefined): boolean {
  return v === true || v === 'true' || v === '1' || v === 'yes';
}

/**
 * Customer imports as jobs and exports (docs/data-operations.md). An import's file is kept under
 * DATA_DIR/imports while it runs; a worker in each server takes waiting imports (queued, or left
 * running by a stopped process) and runs them a batch at a time, each batch's customers, counters and
 * failed rows in one transaction, so a resumed import repeats and loses no row. Rows are written by
 * the customers service (the create endpoint's validation and write path).
 */
export function createDataOpsService(ctx: AppContext, deps: { customers: CustomerDataOps; audit: AuditRecorder; defineJob: DefineJob }) {
  const { customers, audit } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const clock = ctx.clock;
  const logger = ctx.logger;
  const repo = createImportsRepository(ctx.database.features);
  const limits = ctx.config.imports;
  const leaseMs = limits.leaseSeconds * 1000;
  const readLimits: ReadLimits = {
    maxRows: limits.maxRows,
    maxUncompressedBytes: limits.xlsxMaxUncompressedBytes,
    maxSharedStrings: limits.xlsxMaxSharedStrings,
  };
  const dir = path.join(ctx.config.dataDir, 'imports');
  /** Imports this process cannot run (their file is on another server's disk). */
  const elsewhere = new Set<string>();

  async function visibleJob(appId: string, callerId: number | null, isManager: boolean, id: string): Promise<ImportRow> {
    const row = await repo.find(db, appId, id);
    if (!row || (!isManager && row.created_by !== callerId)) throw importNotFound();
    return row;
  }

  /** A file's header and up to `n` data rows (reading them also proves the file opens, and that a workbook is within its limits). */
  async function headerOf(filePath: string, format: 'csv' | 'xlsx', encoding: string, n: number): Promise<string[][]> {
    const [first, ...rows] = await firstRows(filePath, format, encoding, readLimits, n + 1);
    if (!first || first.every((c) => c.trim() === '')) throw new UnreadableFile('The file has no header row');
    return [first.map((c) => c.trim()), ...rows];
  }

  function checkEncoding(encoding: string | undefined): void {
    if (encoding !== undefined && encoding !== '' && !isKnownEncoding(encoding)) {
      throw badRequest(`Invalid parameter 'encoding': unknown encoding ${encoding}`);
    }
  }

  /**
   * An upload's format, encoding (a CSV's: the given one, else detected), header and up to `n` data
   * rows; a file that cannot be read is `import_file_invalid`.
   */
  async function headOf(
    incoming: IncomingFile,
    givenEncoding: string | undefined,
    n = 0,
  ): Promise<{ format: 'csv' | 'xlsx'; encoding: string; header: string[]; rows: string[][] }> {
    try {
      const format = await formatOf(incoming.path, incoming.filename);
      if (format === 'xlsx' && incoming.size > limits.xlsxMaxBytes) {
        throw new UnreadableFile(`An XLSX workbook may be at most ${limits.xlsxMaxBytes} bytes; save larger files as CSV`);
      }
      const encoding = format === 'csv' ? givenEncoding || (await detectEncoding(incoming.path)) : 'utf8';
      const [header, ...rows] = await headerOf(incoming.path, format, encoding, n);
      return { format, encoding, header: header as string[], rows };
    } catch (err) {
      if (err instanceof UnreadableFile) throw invalidFile(err.message);
      throw err;
    }
  }

  /** Validates the upload and its options, keeps the file, and records the job (queued). */
  async function createJob(
    appId: string,
    actor: { callerId: number | null; acting: number; isManager: boolean },
    incoming: IncomingFile | undefined,
    input: ImportRequest,
    keepFile: (target: string) => Promise<void>,
    /** Run by the caller at once (the CLI): recorded running, held by its lease, so no server's worker takes it. */
    runHere = false,
  ): Promise<ImportRow> {
    if (!incoming) throw invalidFile("No file: send it as multipart/form-data in the field 'file'");
    if (incoming.tooLarge) throw invalidFile(`The file is larger than ${limits.maxBytes} bytes`);
    const policy = (input.duplicate_policy ?? 'skip') as DuplicatePolicy;
    if (!POLICIES.includes(policy)) throw badRequest("Invalid parameter 'duplicate_policy': one of skip, update, merge");
    let overrides: Record<string, string> = {};
    if (input.mapping !== undefined && input.mapping !== '') {
      try {
        const parsed = JSON.parse(input.mapping) as unknown;
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
        overrides = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
      } catch {
        throw badRequest("Invalid parameter 'mapping': a JSON object of column → attribute name");
      }
    }
    checkEncoding(input.encoding);
    let owner = actor.acting;
    if (input.svc_user_id !== undefined && input.svc_user_id !== actor.acting && actor.callerId !== null) {
      // As on create: only Master/Admin name another owner, an active member (checked again on every row).
      owner = (await customers.actingFor(appId, actor.callerId, String(input.svc_user_id))).acting;
    }
    const { format, encoding, header } = await headOf(incoming, input.encoding);
    const attributes = await customers.importAttributes(appId);
    const columns = mapColumns(header, attributes, overrides);
    if (columns.every((c) => c === null)) throw invalidFile('No column of the file maps to a customer attribute');
    const options: ImportJobOptions = {
      columns,
      header,
      encoding,
      groupId: input.group_id === '' ? undefined : input.group_id,
      policy,
      dryRun: truthy(input.dry_run),
      mayAssignOthers: actor.callerId === null || actor.isManager,
    };
    const id = timeOrderedUuid();
    await fsp.mkdir(dir, { recursive: true });
    const filePath = path.join(dir, `${id}.${format}`);
    await keepFile(filePath);
    const now = clock.now();
    const row: ImportRow = {
      id,
      app_id: appId,
      created_by: actor.callerId,
      owner_id: owner,
      status: runHere ? 'running' : 'queued',
      format,
      file_name: incoming.filename.slice(0, 255),
      file_path: filePath,
      options: JSON.stringify(options),
      total: 0,
      processed: 0,
      created: 0,
      updated: 0,
      skipped: 0,
      failed: 0,
      error: null,
      lease_until: runHere ? now + leaseMs : null,
      created_at: now,
      updated_at: now,
    };
    try {
      await db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        await audit(trx, {
          appId,
          actorId: actor.callerId,
          action: 'customer.import',
          targetType: 'import',
          targetId: id,
          detail: { fileName: row.file_name, format, policy, dryRun: options.dryRun, ownerId: owner },
        });
      });
    } catch (err) {
      await fsp.rm(filePath, { force: true });
      throw err;
    }
    return row;
  }

  // ---- The worker: one import at a time per process, a batch per transaction. ----

  const progressListeners = new Map<string, (job: ImportRow) => void>();
  // One import at a time per process; an upload made here starts it without a server's start.
  const worker = deps.defineJob({
    name: 'customer-import',
    idleMs: POLL_MS,
    startOnPoke: true,
    async tick() {
      const job = await claimNext();
      if (job === null) return 'idle';
      await runJob(job);
      return 'worked';
    },
  });
  const poke = () => worker.poke();

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

  class LeaseLost extends Error {}

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

  async function runJob(claimed: ImportRow): Promise<void> {
    let job = claimed;
    const opts = JSON.parse(job.options) as ImportJobOptions;
    const format = job.format as 'csv' | 'xlsx';
    const started = clock.now();
    try {
      if (Number(job.total) === 0 && Number(job.processed) === 0) {
        // Counted (and, over IMPORT_MAX_ROWS, refused) before a row is written.
        const total = await countDataRows(job.file_path, format, opts.encoding, readLimits);
        if (worker.stopping) return;
        const lease = clock.now() + leaseMs;
        if (
          !(await repo.advance(db, job.app_id, job.id, job.lease_until, {
            total: Math.max(0, total),
            lease_until: lease,
            updated_at: clock.now(),
          }))
        )
          return;
        job = { ...job, total: Math.max(0, total), lease_until: lease };
      }
      let rowNumber = 0;
      let batch: { cells: string[]; row: number }[] = [];
      let batchChars = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        job = await commitBatch(job, opts, batch);
        batch = [];
        batchChars = 0;
        progressListeners.get(job.id)?.(job);
        // Requests waiting meanwhile are served between batches.
        await new Promise<void>((resolve) => setImmediate(resolve));
      };
      let header = true;
      for await (const cells of fileRows(job.file_path, format, opts.encoding, readLimits)) {
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
          if (worker.stopping) return;
        }
      }
      await flush();
      await finish(job, 'done', null);
      logger.info({ appId: job.app_id, importId: job.id, rows: job.processed, ms: clock.now() - started }, 'imports: done');
    } catch (err) {
      if (err instanceof LeaseLost) return;
      if (err instanceof UnreadableFile) {
        await finish(job, 'failed', err.message);
        return;
      }
      // A database fault: the job stays running, and is taken up again once its lease runs out.
      logger.error({ err, appId: job.app_id, importId: job.id }, 'imports: a batch failed; the import will be resumed');
    }
  }

  async function finish(job: ImportRow, status: 'done' | 'failed', error: string | null): Promise<void> {
    await repo.update(db, job.app_id, job.id, { status, error, lease_until: null, updated_at: clock.now() });
    await fsp.rm(job.file_path, { force: true });
    progressListeners.get(job.id)?.({ ...job, status, error });
  }

  /** One batch: its customers, the job's counters and lease, and its failed rows, in one transaction. */
  async function commitBatch(job: ImportRow, opts: ImportJobOptions, batch: { cells: string[]; row: number }[]): Promise<ImportRow> {
    const items: ImportItem[] = batch.map(({ cells, row }) => {
      const input: Record<string, unknown> = {};
      opts.columns.forEach((attribute, i) => {
        if (attribute !== null && cells[i] !== undefined && cells[i] !== '') input[attribute] = cells[i];
      });
      if (input.svcUserId === undefined) input.svcUserId = String(job.owner_id);
      return { input, row };
    });
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
      const updated: ImportRow = {
        ...job,
        processed: Number(job.processed) + batch.length,
        created: Number(job.created) + outcome.created,
        updated: Number(job.updated) + outcome.updated,
        skipped: Number(job.skipped) + outcome.skipped,
        failed: Number(job.failed) + outcome.problems.length,
        lease_until: clock.now() + leaseMs,
        updated_at: now,
      };
      const advanced = await repo.advance(trx, job.app_id, job.id, job.lease_until, {
        processed: updated.processed,
        created: updated.created,
        updated: updated.updated,
        skipped: updated.skipped,
        failed: updated.failed,
        lease_until: updated.lease_until,
        updated_at: now,
      });
      if (!advanced) throw new LeaseLost();
      next = updated;
    }, batch.length);
    return next as ImportRow;
  }

  async function sweepIncoming(): Promise<void> {
    const incoming = service.upload.dir;
    try {
      for (const name of await fsp.readdir(incoming)) {
        const file = path.join(incoming, name);
        const stat = await fsp.stat(file).catch(() => null);
        if (stat && clock.now() - stat.mtimeMs > INCOMING_MAX_AGE_MS) await fsp.rm(file, { force: true });
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn({ err }, 'imports: could not sweep half-received uploads');
    }
  }

  // ---- Exports. ----

  async function exportColumns(appId: string): Promise<{ key: string; title: string }[]> {
    const attributes = await customers.importAttributes(appId);
    return [
      { key: 'id', title: 'id' },
      ...attributes.map((a) => ({ key: a.name, title: a.title })),
      { key: 'createdAt', title: 'createdAt' },
      { key: 'updatedAt', title: 'updatedAt' },
    ];
  }

  /** The export's rows (header first) as text cells, a page at a time. */
  async function* exportRows(
    scope: CustomerScope,
    filter: CustomerFilter,
    columns: { key: string; title: string }[],
  ): AsyncGenerator<string[]> {
    yield columns.map((c) => c.title);
    let after: string | null = null;
    for (;;) {
      const { customers: page, last } = await customers.exportPage(scope, filter, after, EXPORT_PAGE);
      for (const c of page) {
        const record = c as unknown as Record<string, unknown>;
        yield columns.map((col) => {
          const v = record[col.key];
          return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v as string | number);
        });
      }
      if (last === null) return;
      after = last;
    }
  }

  /** CSV text of rows: BOM, then each line. */
  async function* csvText(rows: AsyncIterable<string[]>): AsyncGenerator<string> {
    yield BOM;
    let buffered = '';
    for await (const cells of rows) {
      buffered += csvLine(cells);
      if (buffered.length >= 64 * 1024) {
        yield buffered;
        buffered = '';
      }
    }
    if (buffered !== '') yield buffered;
  }

  /** An XLSX workbook of rows, streamed (each row committed as it is written; no shared strings). */
  function xlsxStream(rows: AsyncIterable<string[]>, sheetName: string): Readable {
    const out = new PassThrough();
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
    const sheet = workbook.addWorksheet(sheetName);
    void (async () => {
      try {
        for await (const cells of rows) sheet.addRow(cells.map(neutralized)).commit();
        sheet.commit();
        await workbook.commit();
      } catch (err) {
        out.destroy(err as Error);
      }
    })();
    return out;
  }

  function encode(rows: AsyncIterable<string[]>, format: ExportFormat, sheetName: string): Readable {
    return format === 'xlsx' ? xlsxStream(rows, sheetName) : Readable.from(csvText(rows));
  }

  const service = {
    upload: { field: 'file', dir: path.join(dir, 'incoming'), maxBytes: limits.maxBytes },

    /** Starts an import (any member, for themselves; Master/Admin for another member): answers the job, queued. */
    async startImport(
      appId: string,
      callerId: number,
      pathUserId: string,
      incoming: IncomingFile | undefined,
      input: ImportRequest,
    ): Promise<ImportJobResponse> {
      const { acting, isManager } = await customers.actingFor(appId, callerId, pathUserId);
      const row = await createJob(appId, { callerId, acting, isManager }, incoming, input, async (target) => {
        await fsp.rename((incoming as IncomingFile).path, target);
      });
      poke();
      return toImportJob(row, clock);
    },

    /**
     * What an import of a file would read, before it is started: its format, encoding, header, the
     * mapping its columns would take (the import's own, from the header) and its first rows. Nothing
     * is kept. A CSV's first 64 KiB say as much as the whole file (its encoding is detected from
     * them), so a client may send only those; a cut-off last row is left out.
     */
    async previewImport(appId: string, callerId: number, incoming: IncomingFile | undefined, input: { encoding?: string | undefined }) {
      try {
        // Any member (the same check as an import for themselves).
        await customers.actingFor(appId, callerId, String(callerId));
        if (!incoming) throw invalidFile("No file: send it as multipart/form-data in the field 'file'");
        if (incoming.tooLarge) throw invalidFile(`The file is larger than ${limits.maxBytes} bytes`);
        checkEncoding(input.encoding);
        // One row more is read: the last may be cut off where a client stopped sending the file.
        const { format, encoding, header, rows } = await headOf(incoming, input.encoding, PREVIEW_ROWS + 1);
        const columns = mapColumns(header, await customers.importAttributes(appId));
        return {
          format,
          encoding,
          mapping: header.map((column, i) => ({ column, attribute: columns[i] ?? '' })),
          rows: rows.slice(0, PREVIEW_ROWS),
        };
      } finally {
        if (incoming) await fsp.rm(incoming.path, { force: true });
      }
    },

    /** The imports a member started, newest first (the member themselves, Master, Admin). */
    async recentImports(appId: string, callerId: number, pathUserId: string, limit: number): Promise<ImportJobResponse[]> {
      const { acting } = await customers.actingFor(appId, callerId, pathUserId);
      return (await repo.recent(db, appId, acting, limit)).map((row) => toImportJob(row, clock));
    },

    /** An import's progress (its creator, Master, Admin). */
    async importJob(appId: string, callerId: number, pathUserId: string, id: string): Promise<ImportJobResponse> {
      const { isManager } = await customers.actingFor(appId, callerId, pathUserId);
      return toImportJob(await visibleJob(appId, callerId, isManager, id), clock);
    },

    /** The rows of an import that failed, as CSV: the file's header and cells, and a `reason` column. */
    async problemsCsv(appId: string, callerId: number, pathUserId: string, id: string): Promise<Readable> {
      const { isManager } = await customers.actingFor(appId, callerId, pathUserId);
      const job = await visibleJob(appId, callerId, isManager, id);
      const header = (JSON.parse(job.options) as ImportJobOptions).header;
      async function* rows(): AsyncGenerator<string[]> {
        yield [...header, 'reason'];
        let after = 0;
        for (;;) {
          const page = await repo.problems(db, appId, id, after, EXPORT_PAGE);
          for (const p of page) {
            const cells = JSON.parse(p.cells) as string[];
            yield [...header.map((_, i) => cells[i] ?? ''), ...cells.slice(header.length), p.reason];
          }
          if (page.length < EXPORT_PAGE) return;
          after = Number((page[page.length - 1] as { row_number: number }).row_number);
        }
      }
      return Readable.from(csvText(rows()));
    },

    /** A file to fill in: the project's current attributes (their titles) as the header, CSV or XLSX. */
    async template(appId: string, callerId: number, format: ExportFormat): Promise<Readable> {
      // Any member may take it (the same check as an import for themselves).
      await customers.actingFor(appId, callerId, String(callerId));
      const attributes = (await customers.importAttributes(appId)).filter((a) => !a.readonly);
      async function* rows(): AsyncGenerator<string[]> {
        yield attributes.map((a) => (a.required ? `${a.title}*` : a.title));
      }
      return encode(rows(), format, 'customers');
    },

    /**
     * The customers the caller may see (a Sales member: their own, unless the project switched Sales
     * export off), with the list's filters (Master/Admin: `ownerId`, one member's), as CSV or XLSX,
     * streamed. Recorded in the audit log.
     */
    async exportCustomers(
      appId: string,
      callerId: number | null,
      filter: CustomerFilter,
      format: ExportFormat,
      ownerId?: number,
    ): Promise<Readable> {
      const scope: CustomerScope =
        callerId === null ? { appId, ownerId: ownerId ?? null } : await customers.exportScope(appId, callerId, ownerId);
      const columns = await exportColumns(appId);
      await audit(db, {
        appId,
        actorId: callerId,
        action: 'customer.export',
        targetType: 'project',
        targetId: appId,
        detail: {
          format,
          ownerId: scope.ownerId,
          ...(filter.keyword ? { keyword: filter.keyword } : {}),
          ...(filter.groupId !== undefined ? { groupId: filter.groupId } : {}),
        },
      });
      return encode(exportRows(scope, filter, columns), format, 'customers');
    },

    /**
     * `rapport import customers`: an import of a local file run in this process (the CLI), with
     * progress reported after every batch. The operator may name any owner.
     */
    async importLocal(
      appId: string,
      ownerId: number,
      filePath: string,
      input: ImportRequest,
      onProgress: (job: ImportJobResponse) => void,
    ): Promise<ImportJobResponse> {
      const stat = await fsp.stat(filePath);
      const row = await createJob(
        appId,
        { callerId: null, acting: ownerId, isManager: true },
        { path: filePath, filename: path.basename(filePath), size: stat.size, tooLarge: false },
        input,
        (target) => fsp.copyFile(filePath, target),
        true,
      );
      progressListeners.set(row.id, (job) => onProgress(toImportJob(job, clock)));
      try {
        await runJob(row);
      } finally {
        progressListeners.delete(row.id);
      }
      return toImportJob((await repo.find(db, appId, row.id)) as ImportRow, clock);
    },

    /**
     * Uploads a crashed process left half-received are removed (an hour old: another process may be
     * receiving one now). The server calls it at start, with the background jobs' start (which takes up
     * imports left waiting or running by a stopped process).
     */
    sweepIncoming(): Promise<void> {
      return sweepIncoming();
    },
  };
  return service;
}

export type DataOpsService = ReturnType<typeof createDataOpsService>;
