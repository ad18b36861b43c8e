import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import type { CustomerExport, ExportRequest } from './export.service.ts';
import type { ImportRunner } from './import-runner.service.ts';
import type { ImportJobs } from './imports.service.ts';
import { type ImportJobResponse, type ImportRow, toImportJob } from './mapper.ts';
import { createImportsRepository } from './repository.ts';
import type { ImportRequest } from './uploads.ts';

/** `rapport import customers`: the project, the owner of rows that name none, the operator's file and the import's options. */
export interface LocalImport {
  appId: string;
  ownerId: number;
  filePath: string;
  request: ImportRequest;
  /** Hears the import's progress after every batch. */
  onProgress: (job: ImportJobResponse) => void;
}

/**
 * The CLI's data operations, as the operator runs them (no member: the operator may name any owner
 * and sees every customer): an import of a local file run in this process, and an export.
 */
export function createDataOpsCli(ctx: AppContext, deps: { imports: ImportJobs; runner: ImportRunner; exports: CustomerExport }) {
  const { imports, runner, exports } = deps;
  const db = ctx.database.db;
  const repo = createImportsRepository(ctx.database.features);
  const { clock } = ctx;

  return {
    /**
     * `rapport import customers`: an import of a local file run in this process (recorded running and
     * held by its lease, so no server's job takes it), with progress reported after every batch.
     */
    async importLocal(input: LocalImport): Promise<ImportJobResponse> {
      const { appId, filePath } = input;
      const stat = await fsp.stat(filePath);
      const row = await imports.record({
        appId,
        callerId: null,
        acting: input.ownerId,
        isManager: true,
        incoming: { path: filePath, filename: path.basename(filePath), size: stat.size, tooLarge: false },
        request: input.request,
        keepFile: (target) => fsp.copyFile(filePath, target),
        runHere: true,
      });
      await runner.run(row, (job) => input.onProgress(toImportJob(job, clock)));
      return toImportJob((await repo.find(db, appId, row.id)) as ImportRow, clock);
    },

    /** `rapport export customers`: every customer of the project (with the list's filters), CSV or XLSX, streamed. */
    exportCustomers(appId: string, request: ExportRequest): Promise<Readable> {
      return exports.exportAsOperator(appId, request);
    },
  };
}

export type DataOpsCli = ReturnType<typeof createDataOpsCli>;
