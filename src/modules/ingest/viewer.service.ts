import type { BehaviourRollupsTable, Database } from '../../db/index.ts';
import { CommitQueueFull } from '../../db/index.ts';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type EventMessage, RECORD_BODY, eventRows } from '../../events/outbox.ts';
import { overloaded, quotaExceeded } from '../../http/errors.ts';
import { overviewKeys } from '../behaviour/service.ts';
import { type ParseContext, parseBehaviour, parseClue } from './bodies.ts';
import { parseDuration, parseViewLog } from './link-bodies.ts';
import { QuotaTaken, type SiteRows, type SiteStore, type ViewerRows, emptyPlanRows } from './plans.ts';
import { ItemError } from './reader.ts';
import type { LinkStore, RecordWriter } from './write.service.ts';

/** A view log's columns only the viewer fills: who is viewing, and the view's beacon state (migration 015). */
export interface ViewerViewState {
  visitor_id: string | null;
  customer_id: string | null;
  beacon_seq: number;
  beacon_at: number | null;
  closed_at: number | null;
  left_at: number | null;
  /** The file and version the view opened (a file link's), its page count, and the page it is on (migration 042). */
  file_id: string | null;
  file_version: number | null;
  file_page_count: number | null;
  last_page: number | null;
  /** The address the reader gave on the link's e-mail gate, when the view starts past it (migration 045). */
  reader_email?: string | null;
  /** 1: the gate's code proved it. */
  reader_verified?: number;
}

/**
 * What the public viewer writes for one beacon, one view or one form, as interface-shaped bodies
 * (the Link view log, Duration item, Behaviour record and Clue fields): parsed by the batch's own
 * parsers and written with the batch's rows, overview rollups and outbox events. The viewer names
 * only records it has read, so references are not looked up again.
 */
export interface ViewerWrite {
  appId: string;
  now: number;
  /** Tags of the link the records are about: link views add to the overview's customerTag. */
  linkTags: string[];
  viewLogs?: { id: string; body: Record<string, unknown>; state: ViewerViewState }[];
  behaviours?: { id: string; body: Record<string, unknown> }[];
  clues?: { id: string; body: Record<string, unknown> }[];
  /**
   * A view log moves on with a beacon, if its last beacon is still `fromSeq` (else nothing of the
   * write is written): its totals and leave time, its beacon state, and the Duration items of the
   * pages that changed, each at its position.
   */
  progress?: {
    viewLogId: string;
    /** The view's link, and the version of its file the new pages are read in (null: not a file's): their Duration items' columns. */
    linkId: string;
    fileVersion: number | null;
    fromSeq: number;
    totals: { totalDuration: number; totalPage: number; leaveTime: number | null };
    state: Pick<ViewerViewState, 'beacon_seq' | 'beacon_at' | 'closed_at' | 'left_at'> & Partial<Pick<ViewerViewState, 'last_page'>>;
    durations: { position: number; body: Record<string, unknown> }[];
  };
  /** View logs a visitor made before a customer was known, now that customer's. */
  attribute?: { viewLogIds: string[]; customerId: string; viewerName: string | null };
  /** The form record filled while viewing (the view log's clueId), and its e-mail address (the view's reader's, unless it has one). */
  viewClue?: { viewLogId: string; clueId: string; email?: string | null };
  /** Events of the write that are not about a record it stores (an anonymous visitor opening a link). */
  events?: EventMessage[];
  /** Site tracking (docs/site-tracking.md): what the snippet's records write beside `behaviours`. */
  site?: SiteWrite;
}

/** What site tracking writes beside its behaviour records (docs/site-tracking.md). */
export interface SiteWrite {
  /** Visits begun or going on (their last sign of life `at`). */
  visits?: { visitorId: string; id: string; at: number; site: string | null; referrer: string | null; postId: string | null }[];
  /**
   * An anonymous visitor's records: Behaviour record bodies without their customer (customerId,
   * customerName, svcUserId), kept until the visitor is joined to a customer.
   */
  anonymous?: { id: string; visitorId: string; body: Record<string, unknown> }[];
  /** The visitor tied to a customer; `joined`: its anonymous records this write turns into the customer's (in `behaviours`). */
  tie?: { visitorId: string; customerId: string; verified: boolean; via: 'identify' | 'click' | 'link'; joined: string[] };
  /** A silent visit's end: written only while the visit is open with this last sign of life, else nothing of the write is. */
  close?: { visitorId: string; id: string; lastAt: number };
  /**
   * With `anonymous` or `tie`: the visitor's state they were computed from (SiteGuard). If it no
   * longer holds when the write commits, nothing of the write is (recordViewer answers false).
   */
  guard?: { visitorId: string; tiedTo: string | null; verified: boolean; joinedAll: boolean };
  /**
   * With `anonymous`: the project's daily cap of anonymous records (SITE_ANONYMOUS_DAILY_CAP) they
   * count against, on the day of the write's `now`. When the day's count has no room for them,
   * nothing of the write is written and recordViewer throws quota_exceeded.
   */
  dailyCap?: number;
}

/**
 * The viewer's write path: what the share-link viewer (links) and the site snippet (site) record,
 * parsed by the batch's rules and written with the batch's statements (records, rollups, events),
 * guarded by the view's beacon state or the site visitor's tie they were computed from.
 */
export function createViewerIngestion(ctx: AppContext, deps: { links: LinkStore; writer: RecordWriter; site: SiteStore }) {
  const { links, writer, site } = deps;
  const clock = ctx.clock;

  /** The behaviour rows of a viewer write with their events and overview rollups. */
  function behaviourRows(w: ViewerWrite, pc: (domainId: string) => ParseContext, events: EventMessage[]) {
    const rollups = new Map<string, Insertable<BehaviourRollupsTable>>();
    const rows = (w.behaviours ?? []).map((b) => {
      const p = parseBehaviour(b.body, pc(b.id));
      const day = clock.format(p.row.when_at).slice(0, 10);
      for (const [kind, key] of overviewKeys(p.row.action, p.content, p.linkId === null ? undefined : w.linkTags)) {
        const k = `${p.row.customer_id}\u0000${day}\u0000${kind}\u0000${key}`;
        const r = rollups.get(k);
        if (r) r.count = Number(r.count) + 1;
        else rollups.set(k, { app_id: w.appId, customer_id: p.row.customer_id, day, kind, key, count: 1 });
      }
      events.push({ event_type: 'create', domainType: 'BehaviourLog', domainId: p.row.id, body: RECORD_BODY });
      return p.row;
    });
    return { rows, rollups: [...rollups.values()] };
  }

  /** The view's progress of a viewer write, or null. */
  function progressRows(w: ViewerWrite): ViewerRows['progress'] {
    const g = w.progress;
    if (g === undefined) return null;
    const { appId } = w;
    return {
      appId,
      viewLogId: g.viewLogId,
      fromSeq: g.fromSeq,
      set: {
        ...g.state,
        total_duration: g.totals.totalDuration,
        total_page: g.totals.totalPage,
        leave_time: g.totals.leaveTime === null ? null : clock.format(g.totals.leaveTime),
      },
      durations: g.durations.map((d) => ({
        ...parseDuration(d.body, d.position, appId, g.viewLogId, clock),
        link_id: g.linkId,
        file_version: g.fileVersion,
      })),
    };
  }

  /** The rows of a viewer write; throws (an internal error: the viewer made a body the parsers refuse) on a bad body. */
  function viewerRows(w: ViewerWrite): ViewerRows {
    const { appId, now } = w;
    const pc = (domainId: string): ParseContext => ({ appId, domainId, clock, now });
    const rows = emptyPlanRows();
    for (const v of w.viewLogs ?? []) {
      const parsed = parseViewLog(v.body, pc(v.id));
      rows.link_view_logs.push({ ...parsed.row, ...v.state });
      for (const d of parsed.durations)
        rows.link_view_durations.push({ ...d, link_id: parsed.row.link_id, file_version: v.state.file_version });
    }
    for (const c of w.clues ?? []) rows.clues.push(parseClue(c.body, pc(c.id)).row);
    const events: EventMessage[] = [...(w.events ?? [])];
    const behaviours = behaviourRows(w, pc, events);
    const siteRows = w.site === undefined ? null : siteRowsOf(w.site, appId, now);
    const records = rows.link_view_logs.length + rows.clues.length + behaviours.rows.length + (siteRows?.anonymous.length ?? 0);
    return {
      site: siteRows,
      rows,
      behaviourRows: behaviours.rows,
      outbox: eventRows(appId, events, now),
      rollups: behaviours.rollups,
      records,
      progress: progressRows(w),
      attribute: w.attribute ? { appId, ...w.attribute } : null,
      viewClue: w.viewClue ? { appId, ...w.viewClue } : null,
    };
  }

  /**
   * Site rows: an anonymous record is checked now by the Behaviour record rules (under a stand-in
   * customer), so that joining it to a customer later cannot fail.
   */
  function siteRowsOf(s: SiteWrite, appId: string, now: number): SiteRows {
    const anonymous = (s.anonymous ?? []).map((a) => {
      const parsed = parseBehaviour({ ...a.body, customerId: 'anonymous' }, { appId, domainId: a.id, clock, now });
      return {
        app_id: appId,
        id: a.id,
        visitor_id: a.visitorId,
        when_at: parsed.row.when_at,
        body: JSON.stringify(a.body),
        created_at: now,
      };
    });
    const visits = (s.visits ?? []).map((v) => ({
      app_id: appId,
      visitor_id: v.visitorId,
      id: v.id,
      started_at: v.at,
      last_at: v.at,
      ended_at: null,
      site: v.site,
      referrer: v.referrer,
      post_id: v.postId,
    }));
    const t = s.tie;
    return {
      appId,
      visits,
      anonymous,
      tie:
        t === undefined
          ? null
          : {
              row: {
                app_id: appId,
                id: t.visitorId,
                customer_id: t.customerId,
                verified: t.verified ? 1 : 0,
                via: t.via,
                created_at: now,
                updated_at: now,
              },
              joined: t.joined,
            },
      close: s.close === undefined ? null : { ...s.close, endedAt: now },
      guard: s.guard ?? null,
      quota: s.dailyCap === undefined || s.dailyCap === 0 || anonymous.length === 0 ? null : { day: clock.day(now), cap: s.dailyCap },
    };
  }

  /** Whether a plan applies in this transaction: its quota room, its site guard, its view's beacon and its visit's end. */
  async function applies(trx: Kysely<Database>, p: ViewerRows, gate: Awaited<ReturnType<SiteStore['open']>>): Promise<boolean> {
    p.refusedForQuota = !gate.fits(p.site);
    const s = p.site;
    return (
      !p.refusedForQuota &&
      (s === null || (await gate.holds(trx, s))) &&
      (p.progress === null || (await links.progressView(trx, p.progress))) &&
      (s?.close == null || (await site.closeVisit(trx, { ...s, close: s.close })))
    );
  }

  /**
   * The viewer's plans: each view's progress first (a plan whose view moved on meanwhile is left out
   * whole), then the records of the plans that apply, as a batch's, then the attributions.
   */
  async function writeViewer(trx: Kysely<Database>, plans: ViewerRows[]): Promise<void> {
    const gate = await site.open(
      trx,
      plans.flatMap((p) => (p.site === null ? [] : [p.site])),
    );
    const applied: ViewerRows[] = [];
    for (const p of plans) {
      p.applied = await applies(trx, p, gate);
      if (!p.applied) continue;
      if (p.site !== null) gate.take(p.site);
      applied.push(p);
    }
    if (applied.length === 0) return;
    await writer.writeRows(trx, applied);
    await site.write(
      trx,
      applied.flatMap((p) => (p.site === null ? [] : [p.site])),
    );
    for (const p of applied) {
      if (p.viewClue !== null) await links.setViewClue(trx, p.viewClue);
      if (p.attribute !== null && p.attribute.viewLogIds.length > 0) await links.attributeViews(trx, p.attribute);
    }
    await gate.finish(trx);
  }

  const viewerGroup = ctx.database.commitGroup<ViewerRows>(writeViewer);

  return {
    /**
     * Writes what the public viewer records (docs/links.md) with the rules and statements of a
     * batch: in `trx` when given (a form, with its customer), else grouped with other small writes.
     * False when the write's `progress` found its view moved on, or its site guard failed: then nothing was written.
     */
    async recordViewer(w: ViewerWrite, trx?: Transaction<Database>): Promise<boolean> {
      let plan: ViewerRows;
      try {
        plan = viewerRows(w);
      } catch (err) {
        if (err instanceof ItemError) throw new Error(`the viewer made a record the ingestion rules refuse: ${err.message}`);
        throw err;
      }
      if (trx !== undefined) {
        await writeViewer(trx, [plan]);
        return plan.applied === true;
      }
      const spent = () => {
        const end = clock.dayEnd(w.now);
        return quotaExceeded(
          (end - clock.now()) / 1000,
          `The project's daily quota of ${w.site?.dailyCap ?? 0} anonymous site records is spent until ${clock.format(end)}; nothing was written`,
        );
      };
      try {
        await viewerGroup.submit(plan, Math.max(1, plan.records));
      } catch (err) {
        if (err instanceof CommitQueueFull) throw overloaded(err.retryAfterSeconds, err.message);
        // Written alone, it still met another process taking the quota's last room.
        if (err instanceof QuotaTaken) throw spent();
        throw err;
      }
      if (plan.refusedForQuota === true) throw spent();
      return plan.applied === true;
    },
  };
}
