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

/** A reading that ended in this pass: how (its leave, or quiet), and the hot lead it held when the pass read it. */
export interface Ended {
  reading: ReadingRow;
  quiet: boolean;
  heldHot: string | null;
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
    if (step.kind === 'signal' || step.kind === 'reader' || step.at < now - MAX_SIGNAL_AGE_MS) continue;
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
        hot: null,
      };
      touched.set(step.viewId, row);
      continue;
    }
    const reading = touched.get(step.viewId) ?? known.get(step.viewId);
    if (reading === undefined || reading.ended_at !== null) continue;
    const next = { ...reading, last_page_at: Math.max(reading.last_page_at, step.at) };
    if (step.kind === 'leave') {
      next.ended_at = Math.max(now, step.at);
      plan.ended.push({ reading: next, quiet: false, heldHot: reading.hot });
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
    if (s.kind === 'signal' || s.kind === 'reader') continue;
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
    plan.ended.push({ reading: { ...reading, ended_at: opts.now }, quiet: true, heldHot: reading.hot });
  }
  return plan;
}

/** The key of the hot lead a reading held, told as itself. */
const heldKey = (reading: ReadingRow) => `hot_lead:${reading.customer_id}:${reading.view_id}`;

/**
 * Hot leads during a reading (docs/alerts.md, "A hot lead during a reading"): a `hot_lead` draft (not
 * told yet today) about a customer with a directed reading in progress, or one that ended in this
 * pass, is folded into its most recent one: the draft is recorded without being told, and the
 * reading keeps the score and reasons, which its end's alert tells. One alert for one reading. The
 * fold holds only if the reading is still as the pass read it when it commits (settleReadings).
 */
export async function foldHotLeads(db: Kysely<Database>, drafts: SignalDraft[], plan: ReadingPlan): Promise<void> {
  const byApp = new Map<string, SignalDraft[]>();
  for (const d of drafts) if (d.signal === 'hot_lead') byApp.set(d.appId, [...(byApp.get(d.appId) ?? []), d]);
  for (const [appId, hot] of byApp) {
    const told = await repo.existingKeys(
      db,
      appId,
      hot.map((d) => d.key),
    );
    const fresh = hot.filter((d) => !told.has(d.key));
    if (fresh.length === 0) continue;
    // Readings in progress as this pass leaves them: stored ones, moved on by the pass, ended in it.
    const current = new Map<string, ReadingRow>();
    for (const r of await repo.openReadingsOf(db, appId, [...new Set(fresh.map((d) => d.customerId))])) current.set(r.view_id, r);
    for (const r of plan.readings) if (r.app_id === appId) current.set(r.view_id, r);
    for (const e of plan.ended) if (e.reading.app_id === appId) current.set(e.reading.view_id, e.reading);
    for (const d of fresh) {
      const reading = [...current.values()]
        .filter((r) => r.customer_id === d.customerId && r.started_at <= d.at && (r.ended_at === null || r.ended_at >= d.at))
        .sort((a, b) => b.last_page_at - a.last_page_at)[0];
      if (reading === undefined) continue;
      d.foldedInto = reading.view_id;
      reading.hot = JSON.stringify({ score: d.data.score, reasons: d.data.reasons, reasonDetails: d.data.reasonDetails });
      // A stored reading the pass did not touch is saved with it.
      if (!plan.readings.includes(reading) && !plan.ended.some((e) => e.reading === reading)) plan.readings.push(reading);
    }
  }
}

/** A reading's hot lead, as its end's alert tells it. */
function hotOf(reading: ReadingRow): Record<string, unknown> | null {
  if (reading.hot === null) return null;
  try {
    const v = JSON.parse(reading.hot) as { score?: unknown; reasons?: unknown; reasonDetails?: unknown };
    const hot: Record<string, unknown> = { score: v.score ?? null, reasons: Array.isArray(v.reasons) ? v.reasons : [] };
    if (Array.isArray(v.reasonDetails)) hot.reasonDetails = v.reasonDetails;
    return hot;
  } catch {
    return null;
  }
}

/** The hot lead a reading held, told at its end when the reading itself tells nothing. */
const heldHotLead = (appId: string, reading: ReadingRow, hot: Record<string, unknown>): SignalDraft => ({
  signal: 'hot_lead',
  appId,
  key: heldKey(reading),
  customerId: reading.customer_id,
  subject: null,
  at: reading.ended_at ?? reading.last_page_at,
  concerned: [],
  personal: false,
  data: hot,
});

/**
 * Under the evaluators' lock, before the pass writes: its readings set against the stored ones, which
 * another server's pass may have changed since this one read them (only a pass without events can
 * commit in between: it ends quiet readings). A quiet end is this pass's only if the reading is still
 * open and holds the hot lead it held when read; otherwise its signals are dropped (`lost`: the other
 * pass told the end, or the next pass ends it with its hot lead). A hot lead folded into a reading
 * another pass ended, or into a quiet end dropped, is unfolded: told on its own.
 */
export async function settleReadings(trx: Kysely<Database>, plan: ReadingPlan, drafts: SignalDraft[]): Promise<Set<string>> {
  const lost = new Set<string>();
  const folded = drafts.filter((d) => d.foldedInto !== undefined);
  const byApp = new Map<string, Set<string>>();
  const see = (appId: string, viewId: string) => byApp.set(appId, (byApp.get(appId) ?? new Set()).add(viewId));
  for (const d of folded) see(d.appId, d.foldedInto as string);
  for (const e of plan.ended) if (e.quiet) see(e.reading.app_id, e.reading.view_id);
  const gone = new Set<string>();
  for (const [appId, views] of byApp) {
    const stored = await repo.readings(trx, appId, [...views]);
    for (const e of plan.ended) {
      if (!e.quiet || e.reading.app_id !== appId) continue;
      const s = stored.get(e.reading.view_id);
      if (s !== undefined && s.ended_at === null && s.hot === e.heldHot) continue;
      gone.add(`${appId}:${e.reading.view_id}`);
      lost.add(`deck_read:${e.reading.view_id}`).add(heldKey(e.reading));
    }
    for (const [viewId, s] of stored) if (s.ended_at !== null) gone.add(`${appId}:${viewId}`);
  }
  for (const d of folded) if (gone.has(`${d.appId}:${d.foldedInto as string}`)) delete d.foldedInto;
  plan.ended = plan.ended.filter((e) => !gone.has(`${e.reading.app_id}:${e.reading.view_id}`) || !e.quiet);
  return lost;
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
      const hot = hotOf(reading);
      if (view === undefined || link === undefined || view.pagesRead === 0) {
        // Nothing read to tell: a hot lead folded into it is told as itself.
        if (hot !== null) drafts.push(heldHotLead(appId, reading, hot));
        continue;
      }
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
          ...(hot === null ? {} : { hot: true, ...hot }),
        },
      });
      // A reading's end recorded without being told (a customer's hour spent) tells its hot lead on its own.
      if (hot !== null) drafts.push({ ...heldHotLead(appId, reading, hot), insteadOf: `deck_read:${reading.view_id}` });
    }
  }
  return drafts;
}
