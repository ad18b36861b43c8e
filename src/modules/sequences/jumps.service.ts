import type { Insertable, Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database, SequenceStepRunsTable } from '../../db/index.ts';
import { SEQUENCE_JUMPS_FEED_CURSOR, advanceCursor, readWholeFeed, startCursor } from '../../events/feed-cursors.ts';
import { type EventMessage, bulkEventWriter } from '../../events/outbox.ts';
import { sequenceOutbox } from '../../events/sequencer.ts';
import type { FileViewer } from '../files/service.ts';
import type { LinkReads } from '../links/service.ts';
import type { Lifecycle } from './lifecycle.ts';
import { type Jump, stepsOf } from './mapper.ts';
import { type JumpCandidate, runnerRepository as repo } from './runner.repository.ts';

/** Events one pass reads. */
const BATCH = 500;
/** The behaviour record of a page read in a share link's viewer. */
const PAGE_READ = 'file_view_duration';

/** Another server's pass committed these events first: this one's work is dropped. */
class CursorMoved extends Error {}

/** A page read by a customer in a view (from the feed). */
interface PageRead {
  appId: string;
  customerId: string;
  viewId: string;
}

/** A planned jump: the enrolment, from its step to the jump's. */
interface Move {
  appId: string;
  candidate: JumpCandidate;
  to: number;
}

function pageReadOf(e: { appId: string; domainType: string; body: unknown }): PageRead | null {
  if (e.domainType !== 'BehaviourLog' || e.body === null || typeof e.body !== 'object') return null;
  const body = e.body as Record<string, unknown>;
  if (body.action !== PAGE_READ || typeof body.customerId !== 'string' || typeof body.content !== 'string') return null;
  try {
    const content = JSON.parse(body.content) as { linkViewLogId?: unknown };
    return typeof content.linkViewLogId === 'string'
      ? { appId: e.appId, customerId: body.customerId, viewId: content.linkViewLogId }
      : null;
  } catch {
    return null;
  }
}

/**
 * The deck jump (docs/sequences.md "Running"): a reader of the feed with its own cursor
 * (`sequence-jumps`). Each page a customer reads in a share link's viewer is a `file_view_duration`
 * record; when the view is of a sequence's deck (its link, or the customer's own link of it) and its
 * pages read reach the jump's share of the deck's pages, an active enrolment whose next step comes
 * before the jump's step moves to it, due at once (in the window): the steps passed over are step
 * runs `skipped` (`jumped`) with their `step` events. The cursor moves in the transaction of the
 * jumps, so each record is read once across restarts and servers.
 */
export function createSequenceJumps(
  ctx: AppContext,
  deps: { links: Pick<LinkReads, 'alertLinks' | 'readings'>; files: Pick<FileViewer, 'viewerFile'>; lifecycle: Lifecycle },
) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock } = ctx;
  const writeEvents = bulkEventWriter(ctx.database.features);

  /** Pages read of a file's pages (0–100), over the deck's page count (a view may have read more than a later version has). */
  async function shareRead(appId: string, linkFile: string | null, pagesRead: number): Promise<number> {
    if (pagesRead <= 0) return 0;
    const file = linkFile === null ? null : await deps.files.viewerFile(appId, linkFile);
    const pages = Math.max(file?.pageCount ?? 0, pagesRead);
    return (100 * pagesRead) / pages;
  }

  /** One project's jumps from its pages read. */
  async function planProject(appId: string, reads: PageRead[]): Promise<Move[]> {
    const candidates = await repo.jumpCandidates(db, appId, [...new Set(reads.map((r) => r.customerId))]);
    if (candidates.length === 0) return [];
    const views = await deps.links.readings(appId, [...new Set(reads.map((r) => r.viewId))]);
    const links = await deps.links.alertLinks(appId, [...new Set([...views.values()].map((v) => v.linkId))]);
    const moves = new Map<string, Move>();
    for (const read of reads) {
      const view = views.get(read.viewId);
      if (view === undefined || view.customerId !== read.customerId) continue;
      for (const c of candidates) {
        const jump = c.jump === null ? null : (JSON.parse(c.jump) as Jump);
        if (jump === null || c.customer_id !== read.customerId || moves.has(c.id) || Number(c.step) >= jump.toStep) continue;
        if (view.linkId !== c.deck_link_id && view.linkId !== c.own_link_id) continue;
        const share = await shareRead(appId, links.get(view.linkId)?.fileId ?? null, view.pagesRead);
        if (share >= jump.readShare) moves.set(c.id, { appId, candidate: c, to: jump.toStep });
      }
    }
    return [...moves.values()];
  }

  /** Applies a jump in the pass's transaction: the steps passed over skipped, the enrolment moved, the events. */
  async function apply(trx: Kysely<Database>, m: Move, now: number): Promise<boolean> {
    const from = Number(m.candidate.step);
    const row = await repo.jump(trx, m.appId, { id: m.candidate.id, from, to: m.to, now });
    if (row === undefined) return false;
    const v = (await repo.versions(trx, m.appId, [{ sequenceId: row.sequence_id, version: Number(row.version) }]))[0];
    const steps = v === undefined ? [] : stepsOf(v);
    const runs: Insertable<SequenceStepRunsTable>[] = [];
    const events: EventMessage[] = [];
    for (let step = from; step < m.to; step += 1) {
      const type = steps[step]?.type ?? 'email';
      runs.push({
        app_id: m.appId,
        enrollment_id: row.id,
        step,
        sequence_id: row.sequence_id,
        version: Number(row.version),
        customer_id: row.customer_id,
        kind: type,
        outcome: 'skipped',
        detail: 'jumped',
        mail_id: null,
        task_id: null,
        owner_id: Number(row.owner_id),
        day: clock.day(now),
        created_at: now,
      });
      events.push(deps.lifecycle.event('step', row, { step, type, outcome: 'skipped', detail: 'jumped' }));
    }
    await repo.insertRuns(trx, runs);
    await writeEvents(trx, m.appId, events, now);
    return true;
  }

  return {
    /** One pass over the feed after the cursor: the events read (a full batch: more may wait) and the jumps made. */
    async pass(): Promise<{ events: number; jumps: number; full: boolean }> {
      await sequenceOutbox(db, ctx.database.features);
      const from = await startCursor(db, SEQUENCE_JUMPS_FEED_CURSOR);
      const events = await readWholeFeed(db, clock, from, { limit: BATCH, behaviourActions: [PAGE_READ] });
      if (events.length === 0) return { events: 0, jumps: 0, full: false };
      const to = events[events.length - 1]?.seq ?? from;
      const byApp = new Map<string, PageRead[]>();
      for (const e of events) {
        const read = pageReadOf(e);
        if (read !== null) byApp.set(read.appId, [...(byApp.get(read.appId) ?? []), read]);
      }
      const moves: Move[] = [];
      for (const [appId, reads] of byApp) moves.push(...(await planProject(appId, reads)));
      const full = events.length === BATCH;
      try {
        const jumps = await db.transaction().execute(async (trx) => {
          if (!(await advanceCursor(trx, SEQUENCE_JUMPS_FEED_CURSOR, from, to))) throw new CursorMoved();
          const now = clock.now();
          let made = 0;
          for (const m of moves) if (await apply(trx, m, now)) made += 1;
          return made;
        });
        return { events: events.length, jumps, full };
      } catch (err) {
        if (err instanceof CursorMoved) return { events: 0, jumps: 0, full: true };
        throw err;
      }
    },
  };
}

export type SequenceJumps = ReturnType<typeof createSequenceJumps>;
