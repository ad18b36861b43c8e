import type { AppContext } from '../../context.ts';
import type { AccessService } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import { createIngestAuthorizer } from './authorize.service.ts';
import { createBatchIngestion } from './batch.service.ts';
import type { SiteStore } from './plans.ts';
import { createViewerIngestion } from './viewer.service.ts';
import { type CustomerWriter, type RecordOwners, createRecordWriter } from './write.service.ts';

export type { IngestCredentials } from './authorize.service.ts';
export { MAX_EVENTS, type IngestCaller, type IngestResult } from './batch.service.ts';
export { DOMAIN_TABLES, type DomainType } from './items.ts';
// What the site module implements for the viewer write (SiteStore), with the rows and errors it meets.
export { QuotaTaken, type SiteGate, type SiteGuard, type SiteRows, type SiteStore } from './plans.ts';
export type { ViewerViewState, ViewerWrite, SiteWrite } from './viewer.service.ts';
export type { AlsoWrite, CustomerLookups, CustomerWriter, LinkStore } from './write.service.ts';
export { type VisitorRecord, visitorRecordBody } from './visitor-body.ts';

/** Route body limit (docs/interface.md §12: ≤ 5 MB). */
export const MAX_BATCH_BYTES = 5 * 1024 * 1024;

/**
 * Ingestion, one service per caller over one write path: the ingestion route (`authorize`, then
 * `ingest` a producer's batch; campaigns ingest their Post and behaviour records the same way), and
 * the public viewer and the site snippet (`recordViewer`). Every record table is written through its
 * owner (`RecordOwners`; the site's tables through `site`), in the transaction and the statements
 * of the batch or group.
 */
export function createIngestService(
  ctx: AppContext,
  deps: RecordOwners & {
    access: AccessService;
    accounts: AccountsService;
    projects: ProjectsService;
    /** The customers module's create path for Customer items. */
    writeCustomers: CustomerWriter;
    /** The site module's store of the snippet's visits, anonymous records and ties. */
    site: SiteStore;
  },
) {
  const writer = createRecordWriter(ctx.database, {
    behaviour: deps.behaviour,
    histories: deps.histories,
    links: deps.links,
    customers: deps.customers,
    scores: deps.scores,
    writeCustomers: deps.writeCustomers,
  });
  const { authorize } = createIngestAuthorizer(deps);
  const { ingest } = createBatchIngestion(ctx, { ...deps, writer });
  const { recordViewer } = createViewerIngestion(ctx, { links: deps.links, writer, site: deps.site });
  return {
    /**
     * Who may ingest into the project: the project secret, else a Master/Admin token. Checked
     * before the body is read; the result is what `ingest` takes.
     */
    authorize,
    /** A producer's batch: validated whole, written all-or-nothing. */
    ingest,
    /**
     * Writes what the public viewer or the site snippet records, with the rules and statements of a
     * batch; false when the view or visitor moved on meanwhile (nothing written).
     */
    recordViewer,
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
