import type { AppContext } from '../../context.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { CustomerDataOps } from '../customers/service.ts';
import { createDataOpsCli } from './cli.service.ts';
import { createCustomerExport } from './export.service.ts';
import { createImportRunner } from './import-runner.service.ts';
import { createImportJobs } from './imports.service.ts';

export type { DataOpsCli, LocalImport } from './cli.service.ts';
export type { CustomerExport, ExportRequest } from './export.service.ts';
export type { ImportRunner } from './import-runner.service.ts';
export type { ImportJobs, ImportRef, NewImport } from './imports.service.ts';
export type { ExportFormat } from './streams.ts';
export type { ImportRequest, IncomingFile } from './uploads.ts';

/**
 * Customer imports as jobs and exports (docs/data-operations.md), one service per caller: `imports`
 * (members start, preview and follow imports and take the template), the `customer-import` job that
 * runs them (the runner, defined here), `exports` (members' exports, streamed) and `cli` (the
 * operator's import of a local file and export). Customers are read and written through the
 * customers service.
 */
export function createDataOpsServices(ctx: AppContext, deps: { customers: CustomerDataOps; audit: AuditRecorder; defineJob: DefineJob }) {
  const { customers, audit } = deps;
  const runner = createImportRunner(ctx, { customers });
  const job = deps.defineJob(runner.job);
  const imports = createImportJobs(ctx, { customers, audit, started: () => job.poke() });
  const exports = createCustomerExport(ctx, { customers, audit });
  const cli = createDataOpsCli(ctx, { imports, runner, exports });
  return { imports, exports, cli };
}

export type DataOpsServices = ReturnType<typeof createDataOpsServices>;
