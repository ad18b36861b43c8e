import type { AppContext } from '../../context.ts';
import type { JobDefinition } from '../../lib/jobs.ts';
import type { CustomerWritePath, ViewerCustomer } from '../customers/service.ts';
import type { IngestService } from '../ingest/service.ts';
import { type SilentView, tagsOf } from './mapper.ts';
import type { LinkRecords } from './records.ts';
import type { linksRepository } from './repository.ts';

/** A view without a beacon for this long is closed (its leave recorded) by the sweep. */
export const SILENT_VIEW_MS = 30 * 1000;
/** How often the sweep job runs. */
export const SWEEP_EVERY_MS = 10_000;
/** Silent views one sweep closes at most. */
const SWEEP_BATCH = 200;

/** The SQL the sweep runs: the module's repository (a spec hands a fake). */
export type SweepRepository = Pick<typeof linksRepository, 'view' | 'silentViews'>;

export interface ViewSweepDeps {
  customers: Pick<CustomerWritePath, 'viewerCustomers'>;
  ingest: Pick<IngestService, 'recordViewer'>;
  records: LinkRecords;
  repository: SweepRepository;
}

/**
 * The background sweep of view recording (docs/links.md, "Beacons"; views.service.ts records the
 * rest): views whose page fell silent are closed, their leave and their customer's leave record
 * written through the ingestion service's write path, as a leave beacon's are.
 */
export function createViewSweep(ctx: AppContext, deps: ViewSweepDeps) {
  const { customers, ingest, records, repository: repo } = deps;
  const reader = ctx.database.reader;
  const { clock } = ctx;

  /** Closes one silent view: its leave at its last beacon, and its customer's leave record. */
  async function closeSilent(v: SilentView, customer: ViewerCustomer | null, now: number): Promise<boolean> {
    const link = { id: v.link_id, type: v.link_type, name: v.link_name, src: v.link_src };
    const pages = (await repo.view(reader, v.app_id, v.id))?.durations ?? [];
    let total = 0;
    for (const d of pages) total += Number(d.duration ?? 0);
    return ingest.recordViewer({
      appId: v.app_id,
      now,
      linkTags: tagsOf({ tags: v.link_tags }),
      behaviours: customer === null ? [] : [records.leave(customer, { link, view: v, at: v.beacon_at, env: null })],
      progress: {
        viewLogId: v.id,
        linkId: v.link_id,
        fileVersion: null,
        fromSeq: v.beacon_seq,
        totals: { totalDuration: total, totalPage: pages.length, leaveTime: v.beacon_at },
        state: { beacon_seq: v.beacon_seq, beacon_at: v.beacon_at, closed_at: now, left_at: v.beacon_at },
        durations: [],
      },
    });
  }

  /**
   * Closes views silent for SILENT_VIEW_MS (every project's): the leave time is the last beacon's,
   * and a customer's view gets its leave record. Several processes may sweep at once: a view is
   * closed once. Returns how many it closed.
   */
  async function sweep(): Promise<number> {
    const now = clock.now();
    const silent = await repo.silentViews(ctx.database.db, now - SILENT_VIEW_MS, SWEEP_BATCH);
    if (silent.length === 0) return 0;
    const customerIds = new Map<string, string[]>();
    for (const v of silent) if (v.customer_id !== null) customerIds.set(v.app_id, [...(customerIds.get(v.app_id) ?? []), v.customer_id]);
    const known = new Map<string, ViewerCustomer>();
    for (const [appId, ids] of customerIds) for (const [id, c] of await customers.viewerCustomers(appId, ids)) known.set(id, c);
    let closed = 0;
    for (const v of silent) {
      if (await closeSilent(v, v.customer_id === null ? null : (known.get(v.customer_id) ?? null), now)) closed += 1;
    }
    return closed;
  }

  const sweepJob: JobDefinition = {
    name: 'link-view-sweep',
    idleMs: SWEEP_EVERY_MS,
    tick: async () => ((await sweep()) > 0 ? 'worked' : 'idle'),
  };

  return {
    sweep,
    /** The background job `link-view-sweep` that runs the sweep (the composition root defines it). */
    sweepJob,
  };
}
