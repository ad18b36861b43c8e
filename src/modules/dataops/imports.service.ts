import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { badRequest, failure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { CustomerDataOps, DuplicatePolicy } from '../customers/service.ts';
import { type ImportJobOptions, type ImportJobResponse, type ImportRow, toImportJob } from './mapper.ts';
import { mapColumns } from './mapping.ts';
import { createImportsRepository } from './repository.ts';
import { csvText } from '../../lib/csv.ts';
import { type ExportFormat, encode } from './streams.ts';
import { type ImportRequest, type IncomingFile, checkEncoding, headOf, invalidFile, presentFile } from './uploads.ts';

/** Data rows a preview shows. */
const PREVIEW_ROWS = 3;
/** Failed rows read per page of a problems file. */
const PROBLEMS_PAGE = 1000;
/** An incoming upload this old was left by a process that stopped while receiving it. */
const INCOMING_MAX_AGE_MS = 3600_000;
const POLICIES: readonly DuplicatePolicy[] = ['skip', 'update', 'merge'];

const importNotFound = () => failure('import_not_found');

function truthy(v: string | boolean | undefined): boolean {
  return v === true || v === 'true' || v === '1' || v === 'yes';
}

/** The column mapping an import names: header (or column number) → attribute name. */
function overridesOf(mapping: string | undefined): Record<string, string> {
  if (mapping === undefined || mapping === '') return {};
  try {
    const parsed = JSON.parse(mapping) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  } catch {
    throw badRequest("Invalid parameter 'mapping': a JSON object of column → attribute name");
  }
}

/** A new import as the members' routes or the CLI ask for it. */
export interface NewImport {
  appId: string;
  /** Who asked: a member, or null for the operator (the CLI), who may name any owner. */
  callerId: number | null;
  /** The member it is done for (the path's), and whether the caller is Master or Admin. */
  acting: number;
  isManager: boolean;
  incoming: IncomingFile | undefined;
  request: ImportRequest;
  /** Keeps the upload's file at `target` (moved, or copied from the operator's disk). */
  keepFile: (target: string) => Promise<void>;
  /** Run by the caller at once (the CLI): recorded running, held by its lease, so no server's worker takes it. */
  runHere?: boolean;
}

/** The member's path and the import asked about. */
export interface ImportRef {
  pathUserId: string;
  importId: string;
}

/**
 * Customer imports as members start and follow them (docs/data-operations.md): an import is checked
 * and recorded here, its file kept under DATA_DIR/imports, and run by the `customer-import` job
 * (`started` pokes it). The preview and the template to fill in. The auth hook resolved the actor's
 * membership; the path's member (`svc-user-id`) is the customers service's to check.
 */
export function createImportJobs(ctx: AppContext, deps: { customers: CustomerDataOps; audit: AuditRecorder; started: () => void }) {
  const { customers, audit } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const { clock, logger } = ctx;
  const repo = createImportsRepository(ctx.database.features);
  const limits = ctx.config.imports;
  const leaseMs = limits.leaseSeconds * 1000;
  const dir = path.join(ctx.config.dataDir, 'imports');
  const upload = { field: 'file', dir: path.join(dir, 'incoming'), maxBytes: limits.maxBytes };

  /** The import, if the caller may see it: its creator's, or any for Master and Admin. */
  async function visibleJob(actor: Actor, ref: ImportRef): Promise<ImportRow> {
    const { isManager } = await customers.actingFor(actor.app.id, actor.userId, ref.pathUserId);
    const row = await repo.find(db, actor.app.id, ref.importId);
    if (!row || (!isManager && row.created_by !== actor.userId)) throw importNotFound();
    return row;
  }

  /** The options an import runs with and the owner of its rows: its file read, its columns mapped (refused when none maps). */
  async function optionsOf(
    job: NewImport,
    incoming: IncomingFile,
  ): Promise<{ format: 'csv' | 'xlsx'; options: ImportJobOptions; owner: number }> {
    const { request } = job;
    const policy = (request.duplicate_policy ?? 'skip') as DuplicatePolicy;
    if (!POLICIES.includes(policy)) throw badRequest("Invalid parameter 'duplicate_policy': one of skip, update, merge");
    const overrides = overridesOf(request.mapping);
    checkEncoding(request.encoding);
    const owner = await ownerOf(job);
    const { format, encoding, header } = await headOf(incoming, limits, { encoding: request.encoding, rows: 0 });
    const columns = mapColumns(header, await customers.importAttributes(job.appId), overrides);
    if (columns.every((c) => c === null)) throw invalidFile('No column of the file maps to a customer attribute');
    const options: ImportJobOptions = {
      columns,
      header,
      encoding,
      groupId: request.group_id === '' ? undefined : request.group_id,
      policy,
      dryRun: truthy(request.dry_run),
      mayAssignOthers: job.callerId === null || job.isManager,
    };
    return { format, options, owner };
  }

  /** The owner of rows that name none: the acting member, or (as on create: only Master/Admin) another active member. */
  async function ownerOf(job: NewImport): Promise<number> {
    const named = job.request.svc_user_id;
    if (named === undefined || named === job.acting || job.callerId === null) return job.acting;
    // Checked again on every row.
    return (await customers.actingFor(job.appId, job.callerId, String(named))).acting;
  }

  /** Validates the upload and its options, keeps the file, and records the job (queued, or running for the CLI). */
  async function record(job: NewImport): Promise<ImportRow> {
    const incoming = presentFile(job.incoming, limits);
    const { format, options, owner } = await optionsOf(job, incoming);
    const id = timeOrderedUuid();
    await fsp.mkdir(dir, { recursive: true });
    const filePath = path.join(dir, `${id}.${format}`);
    await job.keepFile(filePath);
    const now = clock.now();
    const row: ImportRow = {
      id,
      app_id: job.appId,
      created_by: job.callerId,
      owner_id: owner,
      status: job.runHere ? 'running' : 'queued',
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
      lease_until: job.runHere ? now + leaseMs : null,
      created_at: now,
      updated_at: now,
    };
    try {
      await db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        const detail = { fileName: row.file_name, format, policy: options.policy, dryRun: options.dryRun, ownerId: owner };
        await audit(trx, {
          appId: job.appId,
          actorId: job.callerId,
          action: 'customer.import',
          targetType: 'import',
          targetId: id,
          detail,
        });
      });
    } catch (err) {
      await fsp.rm(filePath, { force: true });
      throw err;
    }
    return row;
  }

  return {
    /** Where import uploads land, and how large they may be (the upload routes' settings). */
    upload,
    record,

    /** Starts an import (any member, for themselves; Master/Admin for another member): answers the job, queued. */
    async startImport(
      actor: Actor,
      input: { pathUserId: string; incoming: IncomingFile | undefined; request: ImportRequest },
    ): Promise<ImportJobResponse> {
      const { acting, isManager } = await customers.actingFor(actor.app.id, actor.userId, input.pathUserId);
      const { incoming, request } = input;
      const row = await record({
        appId: actor.app.id,
        callerId: actor.userId,
        acting,
        isManager,
        incoming,
        request,
        keepFile: (target) => fsp.rename((incoming as IncomingFile).path, target),
      });
      deps.started();
      return toImportJob(row, clock);
    },

    /**
     * What an import of a file would read, before it is started (any member): its format, encoding,
     * header, the mapping its columns would take (the import's own, from the header) and its first
     * rows. Nothing is kept. A CSV's first 64 KiB say as much as the whole file (its encoding is
     * detected from them), so a client may send only those; a cut-off last row is left out.
     */
    async previewImport(actor: Actor, input: { incoming: IncomingFile | undefined; encoding?: string | undefined }) {
      try {
        const incoming = presentFile(input.incoming, limits);
        checkEncoding(input.encoding);
        // One row more is read: the last may be cut off where a client stopped sending the file.
        const { format, encoding, header, rows } = await headOf(incoming, limits, { encoding: input.encoding, rows: PREVIEW_ROWS + 1 });
        const columns = mapColumns(header, await customers.importAttributes(actor.app.id));
        return {
          format,
          encoding,
          mapping: header.map((column, i) => ({ column, attribute: columns[i] ?? '' })),
          rows: rows.slice(0, PREVIEW_ROWS),
        };
      } finally {
        if (input.incoming) await fsp.rm(input.incoming.path, { force: true });
      }
    },

    /** The imports a member started, newest first (the member themselves, Master, Admin). */
    async recentImports(actor: Actor, input: { pathUserId: string; limit: number }): Promise<ImportJobResponse[]> {
      const { acting } = await customers.actingFor(actor.app.id, actor.userId, input.pathUserId);
      return (await repo.recent(db, actor.app.id, acting, input.limit)).map((row) => toImportJob(row, clock));
    },

    /** An import's progress (its creator, Master, Admin). */
    async importJob(actor: Actor, ref: ImportRef): Promise<ImportJobResponse> {
      return toImportJob(await visibleJob(actor, ref), clock);
    },

    /** The rows of an import that failed, as CSV: the file's header and cells, and a `reason` column. */
    async problemsCsv(actor: Actor, ref: ImportRef): Promise<Readable> {
      const job = await visibleJob(actor, ref);
      const header = (JSON.parse(job.options) as ImportJobOptions).header;
      async function* rows(): AsyncGenerator<string[]> {
        yield [...header, 'reason'];
        let after = 0;
        for (;;) {
          const page = await repo.problems(db, job.app_id, job.id, after, PROBLEMS_PAGE);
          for (const p of page) {
            const cells = JSON.parse(p.cells) as string[];
            yield [...header.map((_, i) => cells[i] ?? ''), ...cells.slice(header.length), p.reason];
          }
          if (page.length < PROBLEMS_PAGE) return;
          after = Number((page[page.length - 1] as { row_number: number }).row_number);
        }
      }
      return Readable.from(csvText(rows()));
    },

    /** A file to fill in (any member): the project's current attributes (their titles) as the header, CSV or XLSX. */
    async template(actor: Actor, format: ExportFormat): Promise<Readable> {
      const attributes = (await customers.importAttributes(actor.app.id)).filter((a) => !a.readonly);
      async function* rows(): AsyncGenerator<string[]> {
        yield attributes.map((a) => (a.required ? `${a.title}*` : a.title));
      }
      return encode(rows(), format, 'customers');
    },

    /**
     * Uploads a crashed process left half-received are removed (an hour old: another process may be
     * receiving one now). The server calls it at start, with the background jobs' start (which takes up
     * imports left waiting or running by a stopped process).
     */
    async sweepIncoming(): Promise<void> {
      try {
        for (const name of await fsp.readdir(upload.dir)) {
          const file = path.join(upload.dir, name);
          const stat = await fsp.stat(file).catch(() => null);
          if (stat && clock.now() - stat.mtimeMs > INCOMING_MAX_AGE_MS) await fsp.rm(file, { force: true });
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn({ err }, 'imports: could not sweep half-received uploads');
      }
    },
  };
}

export type ImportJobs = ReturnType<typeof createImportJobs>;
