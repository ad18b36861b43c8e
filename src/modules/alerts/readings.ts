import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { AlertLink } from '../links/service.ts';
import type { AlertsDeps } from './common.ts';
import { type ReadingRow, signalsRepository as repo } from './signals.repository.ts';
import type { FeedStep, SignalDraft } from './sources.ts';

/**
 * Readings of directed decks (docs/alerts.md "A reading becomes one alert"): a customer's view of a
 * link directed at them opens a reading, each page record moves it on, and it ends with the view's
 * leave (a leave beacon, or the view sweep's close after 30 s of silence) or when no page record has
 * come for ALERT_READING_QUIET seconds. Its open is the `deck_opened` signal; its end, with the pages
 * and time read, the `deck_read` signal.
 */

/** Signals about records older than this are not sent (a producer's backfill of last year's views is no news). */
export const MAX_SIGNAL_AGE_MS = 60 * 60 * 1000;
/** Quiet readings one pass ends at most. */
const QUIET_BATCH = 200;

/** A reading that ended in this pass: how (its leave, or quiet). */
export interface Ended {
  reading: ReadingRow;
  quiet: boolean;
}

/** What a pass found of readings: the drafts of opens, the readings to save, the readings that ended. */
export interface ReadingPlan {
  drafts: SignalDraft[];
  readings: ReadingRow[];
  ended: Ended[];
}

const openDraft = (step: Extract<FeedStep, { kind: 'open' }>, link: AlertLink): SignalDraft => ({
  signal: 'deck_opened',
  appId: step.appId,
  key: `deck_opened:${step.viewId}`,
  customerId: step.customerId,
  subject: link.id,
  at: step.at,
  concerned: link.creatorId === null ? [] : [link.creatorId],
  personal: false,
  data: { linkId: link.id, linkName: link.name, viewId: step.viewId },
});

/** One project's reading steps, in feed order, over the readings stored for their views. */
async function planProject(deps: Pick<AlertsDeps, 'links'>, db: Kysely<Database>, appId: string, steps: FeedStep[], now: number) {
  const viewIds = [...new Set(steps.map((s) => ('viewId' in s ? s.viewId : '')).filter((v) => v !== ''))];
  const known = await repo.readings(db, appId, viewIds);
  const opens = steps.filter((s): s is Extract<FeedStep, { kind: 'open' }> => s.kind === 'open');
  const links = await deps.links.alertLinks(appId, [...new Set(opens.map((o) => o.linkId))]);
  const plan: ReadingPlan = { drafts: [], readings: [], ended: [] };
  const touched = new Map<string, ReadingRow>();
  for (const step of steps) {
    if (step.kind === 'signal' || step.at < now - MAX_SIGNAL_AGE_MS) continue;
    if (step.kind === 'open') {
      const link = links.get(step.linkId);
      // Only a link directed at this very customer is "their" deck; a view attributed otherwise is no signal.
      if (link === undefined || link.directedAt !== step.customerId) continue;
      plan.drafts.push(openDraft(step, link));
      if (link.type !== 1 || known.has(step.viewId) || touched.has(step.viewId)) continue;
      const row = {
        app_id: appId,
        view_id: step.viewId,
        link_id: link.id,
        customer_id: step.customerId,
        started_at: step.at,
        last_page_at: step.at,
        ended_at: null,
      };
      touched.set(step.viewId, row);
      continue;
    }
    const reading = touched.get(step.viewId) ?? known.get(step.viewId);
    if (reading === undefined || reading.ended_at !== null) continue;
    const next = { ...reading, last_page_at: Math.max(reading.last_page_at, step.at) };
    if (step.kind === 'leave') {
      next.ended_at = Math.max(now, step.at);
      plan.ended.push({ reading: next, quiet: false });
    }
    touched.set(step.viewId, next);
  }
  plan.readings = [...touched.values()];
  return plan;
}

/** The readings' part of a pass: the steps of every project, then the readings gone quiet. */
export async function planReadings(
  deps: Pick<AlertsDeps, 'links'>,
  db: Kysely<Database>,
  steps: FeedStep[],
  opts: { now: number; quietMs: number },
): Promise<ReadingPlan> {
  const byApp = new Map<string, FeedStep[]>();
  for (const s of steps) {
    if (s.kind === 'signal') continue;
    byApp.set(s.appId, [...(byApp.get(s.appId) ?? []), s]);
  }
  const plan: ReadingPlan = { drafts: [], readings: [], ended: [] };
  for (const [appId, list] of byApp) {
    const p = await planProject(deps, db, appId, list, opts.now);
    plan.drafts.push(...p.drafts);
    plan.readings.push(...p.readings);
    plan.ended.push(...p.ended);
  }
  const handled = new Set(plan.readings.map((r) => `${r.app_id}:${r.view_id}`));
  for (const reading of await repo.quietReadings(db, opts.now - opts.quietMs, QUIET_BATCH)) {
    if (handled.has(`${reading.app_id}:${reading.view_id}`)) continue;
    plan.ended.push({ reading: { ...reading, ended_at: opts.now }, quiet: true });
  }
  return plan;
}

/** The `deck_read` drafts of the readings that ended: pages read of the deck's pages, and the time, as the view stored them. */
export async function readDrafts(deps: Pick<AlertsDeps, 'links' | 'files'>, ended: Ended[]): Promise<SignalDraft[]> {
  const byApp = new Map<string, Ended[]>();
  for (const e of ended) byApp.set(e.reading.app_id, [...(byApp.get(e.reading.app_id) ?? []), e]);
  const drafts: SignalDraft[] = [];
  for (const [appId, list] of byApp) {
    const views = await deps.links.readings(
      appId,
      list.map((e) => e.reading.view_id),
    );
    const links = await deps.links.alertLinks(appId, [...new Set(list.map((e) => e.reading.link_id))]);
    for (const { reading } of list) {
      const view = views.get(reading.view_id);
      const link = links.get(reading.link_id);
      if (view === undefined || link === undefined || view.pagesRead === 0) continue;
      const file = link.fileId === null ? null : await deps.files.viewerFile(appId, link.fileId);
      const pageCount = Math.max(file?.pageCount ?? 0, view.pagesRead);
      drafts.push({
        signal: 'deck_read',
        appId,
        key: `deck_read:${reading.view_id}`,
        customerId: reading.customer_id,
        subject: link.id,
        at: reading.ended_at ?? reading.last_page_at,
        concerned: link.creatorId === null ? [] : [link.creatorId],
        personal: false,
        data: {
          linkId: link.id,
          linkName: link.name,
          viewId: reading.view_id,
          pagesRead: view.pagesRead,
          pageCount,
          seconds: Math.round(view.totalMs / 1000),
          percent: Math.round((100 * view.pagesRead) / pageCount),
        },
      });
    }
  }
  return drafts;
}
