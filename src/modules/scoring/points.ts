/*
 * How behaviour records earn points and how a score decays (docs/scoring.md, ADR 0038). Pure: the
 * write path, the recompute job and merges hand it a customer's state and records and store what it
 * gives back.
 *
 * A score is the sum of every point earned, each halved per half-life H since it was earned. It is
 * kept as its value at a reference time r: the score at t is value · 2^(−(t−r)/H), and adding p
 * earned at w moves it to T = max(r, w): value' = value · 2^(−(T−r)/H) + p · 2^(−(T−w)/H). The key
 * log2(value) + r/H orders customers as their scores do at any time, so it is what is indexed.
 */
import { KEY_PAGE_CAP_SECONDS, type ScoringRules, siteKeyPageOf } from './rules.ts';
import { type Reason, type ReasonDetail, type ReasonKind, type ScoreState } from './state.ts';

// The state's shapes are state.ts's; the rules' callers take them from here.
export {
  type LastSignal,
  type Marks,
  type ReadingMark,
  type Reason,
  type ReasonDetail,
  type ReasonKind,
  type ScoreState,
  emptyState,
} from './state.ts';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Contributions a customer keeps (the answer shows the five largest). */
export const REASONS_KEPT = 8;
/** Recent readings a customer's marks remember (what each has earned). */
const READINGS_KEPT = 16;

/** A behaviour record that may earn points: its time is the record's own, never later than when it was stored. */
export interface ScoredRecord {
  id: string;
  action: string;
  at: number;
  content: Record<string, unknown>;
}

/** A view's pages as stored: per file, the pages read and the time on each (ms). */
export interface ViewPages {
  linkId: string | null;
  files: Map<string, { name: string | null; pages: Map<number, number> }>;
}

/** What the rules need beside the records: views' pages, files' page counts and names, links' names. */
export interface PointsContext {
  rules: ScoringRules;
  views: Map<string, ViewPages>;
  files: Map<string, { name: string; pageCount: number }>;
  links: Map<string, string | null>;
}

/** The actions whose records may earn points (docs/scoring.md); every other record earns none. */
export const SCORING_ACTIONS: ReadonlySet<string> = new Set([
  'link_view_log',
  'file_view_duration',
  'link_leave_log',
  'link_view_clue',
  'submit_form',
  'app_submit_form',
  'access_site',
  'web_page_view',
  'mail_click',
]);
/** The records of a reading in progress or ended: the view's pages are looked at then. */
export const READING_ACTIONS: ReadonlySet<string> = new Set(['file_view_duration', 'link_leave_log']);

export const halfLifeMs = (rules: ScoringRules): number => rules.halfLifeDays * DAY_MS;

/** The order key of a value at its reference time (0 for none). */
export function keyOf(value: number, refAt: number, halfLife: number): number {
  return value > 0 ? Math.log2(value) + refAt / halfLife : 0;
}

/** The score at `now` of an order key (0 for none). */
export function scoreOfKey(key: number, now: number, halfLife: number): number {
  return key === 0 ? 0 : 2 ** (key - now / halfLife);
}

/** `v` earned at `at`, as it counts at `now`. */
export const decayed = (v: number, at: number, now: number, halfLife: number): number => v * 2 ** (-(now - at) / halfLife);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v.slice(0, 512) : undefined);

/** One contribution a record makes. */
interface Contribution {
  kind: ReasonKind;
  key: string;
  action: string;
  points: number;
  at: number;
  d: ReasonDetail;
  /** Counts as one more occurrence (false: more points of one already counted, e.g. more key time of a reading). */
  counts: boolean;
  ref?: string;
}

/** The score's value moved to the later of its reference time and `at`, with `p` earned at `at` added. */
function addValue(state: ScoreState, p: number, at: number, halfLife: number): void {
  const t = Math.max(state.refAt, at);
  state.value = decayed(state.value, state.refAt, t, halfLife) + decayed(p, at, t, halfLife);
  state.refAt = t;
}

function mergeDetail(into: ReasonDetail, d: ReasonDetail): void {
  for (const [k, v] of Object.entries(d) as [keyof ReasonDetail, unknown][]) {
    if (v === undefined) continue;
    if (k === 'pages') into.pages = Math.max(into.pages ?? 0, v as number);
    else if (k === 'keyPages') into.keyPages = [...new Set([...(into.keyPages ?? []), ...(v as number[])])].sort((a, b) => a - b);
    else if (k === 'ms') into.ms = (into.ms ?? 0) + (v as number);
    else (into as Record<string, unknown>)[k] = v;
  }
}

/** A reason's rank: the log of its points, time-invariant as a score's key. */
const rankOf = (r: Reason, halfLife: number) => keyOf(r.v, r.at, halfLife);

/** Adds a contribution: the score, its reason (kept among the largest), the rise and the last signal. */
function contribute(state: ScoreState, c: Contribution, halfLife: number): void {
  if (c.points <= 0) return;
  addValue(state, c.points, c.at, halfLife);
  let reason = state.reasons.find((r) => r.key === c.key);
  if (reason === undefined) {
    reason = { key: c.key, kind: c.kind, v: 0, at: c.at, first: c.at, n: 0, d: {} };
    state.reasons.push(reason);
  }
  const t = Math.max(reason.at, c.at);
  reason.v = decayed(reason.v, reason.at, t, halfLife) + decayed(c.points, c.at, t, halfLife);
  reason.at = t;
  reason.first = Math.min(reason.first, c.at);
  if (c.counts) reason.n += 1;
  if (c.ref !== undefined) reason.ref = c.ref;
  mergeDetail(reason.d, c.d);
  state.reasons.sort((a, b) => rankOf(b, halfLife) - rankOf(a, halfLife));
  if (state.reasons.length > REASONS_KEPT) state.reasons.length = REASONS_KEPT;
  if (c.at > state.riseAt) {
    state.rise = c.points;
    state.riseAt = c.at;
  } else if (c.at === state.riseAt) {
    state.rise += c.points;
  }
  if (state.last === null || c.at >= state.last.at) {
    const { title, linkId, fileId, url } = c.d;
    state.last = { kind: c.kind, action: c.action, at: c.at, points: c.points, title, linkId, fileId, url };
  }
}

/** A link view: a return when it comes more than an hour and at most `returnDays` after the previous one. */
function viewContribution(state: ScoreState, r: ScoredRecord, rules: ScoringRules): Contribution | null {
  const previous = state.marks.lastViewAt;
  state.marks.lastViewAt = Math.max(previous, r.at);
  const gap = r.at - previous;
  if (previous === 0 || gap <= HOUR_MS || gap > rules.returnDays * DAY_MS) return null;
  const d: ReasonDetail = { linkId: text(r.content.linkId), title: text(r.content.title) };
  return { kind: 'return', key: 'return', action: r.action, points: rules.weights.return, at: r.at, d, counts: true };
}

/** A form filled in: a shared link's (its link named) or the site's. */
function formContribution(r: ScoredRecord, ctx: PointsContext): Contribution {
  const linkId = r.action === 'link_view_clue' ? text(r.content.linkId) : undefined;
  const d: ReasonDetail =
    linkId === undefined
      ? { title: text(r.content.title), url: text(r.content.url) }
      : { linkId, title: ctx.links.get(linkId) ?? text(r.content.title) };
  return {
    kind: 'form',
    key: linkId === undefined ? 'form:site' : `form:${linkId}`,
    action: r.action,
    points: ctx.rules.weights.form,
    at: r.at,
    d,
    counts: true,
  };
}

/** A page of the site under a key prefix, once per visit and prefix. */
function siteContribution(state: ScoreState, r: ScoredRecord, rules: ScoringRules): Contribution | null {
  const url = text(r.content.url);
  const prefix = url === undefined ? null : siteKeyPageOf(rules, url);
  if (prefix === null) return null;
  const key = `site:${prefix}`;
  const visit = text(r.content.web_access_log_id) ?? r.id;
  if (state.reasons.find((x) => x.key === key)?.ref === visit) return null;
  const d: ReasonDetail = { prefix, url, title: text(r.content.title) };
  return { kind: 'site_key_page', key, action: r.action, points: rules.weights.site_key_page, at: r.at, d, counts: true, ref: visit };
}

/** A click in a campaign's mail: one per mail within an hour. */
function mailContribution(state: ScoreState, r: ScoredRecord, rules: ScoringRules): Contribution | null {
  const postId = text(r.content.postId);
  const key = postId === undefined ? 'mail' : `mail:${postId}`;
  const known = state.reasons.find((x) => x.key === key);
  if (known !== undefined && r.at - known.at < HOUR_MS && r.at >= known.at) return null;
  return {
    kind: 'mail_click',
    key,
    action: r.action,
    points: rules.weights.mail_click,
    at: r.at,
    d: { url: text(r.content.url) },
    counts: true,
  };
}

/** The contributions of a reading: its files read to the share (once each), and new time on their key pages. */
function readingContributions(state: ScoreState, viewId: string, at: number, ctx: PointsContext): Contribution[] {
  const view = ctx.views.get(viewId);
  if (view === undefined) return [];
  const { rules } = ctx;
  let mark = state.marks.readings.find((m) => m.v === viewId);
  if (mark === undefined) {
    mark = { v: viewId, at, decks: [], keyMs: {} };
    state.marks.readings.push(mark);
  }
  mark.at = Math.max(mark.at, at);
  const out: Contribution[] = [];
  const linkId = view.linkId ?? undefined;
  for (const [fileId, f] of view.files) {
    const facts = ctx.files.get(fileId);
    const title = facts?.name ?? f.name ?? (linkId === undefined ? undefined : (ctx.links.get(linkId) ?? undefined));
    const pageCount = facts?.pageCount ?? 0;
    if (pageCount > 0) {
      const need = Math.max(1, Math.ceil(rules.deckShare * pageCount - 1e-9));
      const d: ReasonDetail = { title, fileId, linkId, pages: Math.min(f.pages.size, pageCount), of: pageCount };
      if (f.pages.size >= need && !mark.decks.includes(fileId)) {
        mark.decks.push(fileId);
        out.push({
          kind: 'deck_read',
          key: `file:${fileId}`,
          action: 'file_view_duration',
          points: rules.weights.deck_read,
          at,
          d,
          counts: true,
        });
      } else {
        // More pages of a reading already counted: the reason tells the most read.
        const known = state.reasons.find((r) => r.key === `file:${fileId}`);
        if (known !== undefined && mark.decks.includes(fileId)) mergeDetail(known.d, { pages: d.pages, of: pageCount });
      }
    }
    const key = rules.keyPages.find((k) => k.fileId === fileId);
    if (key === undefined) continue;
    let ms = 0;
    const read: number[] = [];
    for (const page of key.pages) {
      const spent = f.pages.get(page);
      if (spent === undefined || spent <= 0) continue;
      ms += Math.min(spent, KEY_PAGE_CAP_SECONDS * 1000);
      read.push(page);
    }
    const before = mark.keyMs[fileId] ?? 0;
    if (ms <= before) continue;
    mark.keyMs[fileId] = ms;
    const points = (rules.weights.key_page_second * (ms - before)) / 1000;
    const d: ReasonDetail = { title, fileId, linkId, keyPages: read, ms: ms - before };
    out.push({ kind: 'key_page', key: `keypage:${fileId}`, action: 'file_view_duration', points, at, d, counts: before === 0 });
  }
  return out;
}

/**
 * A customer's state after these records (sorted by time): each record's contribution in order, then
 * each reading they name looked at once, at its latest record's time. `state` is changed in place
 * and returned.
 */
export function applyRecords(state: ScoreState, records: ScoredRecord[], ctx: PointsContext): ScoreState {
  const halfLife = halfLifeMs(ctx.rules);
  const readings = new Map<string, number>();
  for (const r of records) {
    let c: Contribution | null = null;
    switch (r.action) {
      case 'link_view_log':
        c = viewContribution(state, r, ctx.rules);
        break;
      case 'link_view_clue':
      case 'submit_form':
      case 'app_submit_form':
        c = formContribution(r, ctx);
        break;
      case 'access_site':
      case 'web_page_view':
        c = siteContribution(state, r, ctx.rules);
        break;
      case 'mail_click':
        c = mailContribution(state, r, ctx.rules);
        break;
      default:
        if (READING_ACTIONS.has(r.action)) {
          const view = text(r.content.linkViewLogId);
          if (view !== undefined) readings.set(view, Math.max(readings.get(view) ?? 0, r.at));
        }
    }
    if (c !== null) contribute(state, c, halfLife);
  }
  for (const [viewId, at] of readings) for (const c of readingContributions(state, viewId, at, ctx)) contribute(state, c, halfLife);
  state.marks.readings.sort((a, b) => b.at - a.at);
  if (state.marks.readings.length > READINGS_KEPT) state.marks.readings.length = READINGS_KEPT;
  return state;
}

/**
 * Two customers' states as one (a merge: the survivor takes the merged customer's score): values
 * summed at the later reference time, reasons of the same key joined, the later rise and signal.
 */
export function mergeStates(into: ScoreState, from: ScoreState, halfLife: number): ScoreState {
  addValue(into, from.value, from.refAt, halfLife);
  for (const r of from.reasons) {
    const known = into.reasons.find((x) => x.key === r.key);
    if (known === undefined) {
      into.reasons.push({ ...r, d: { ...r.d } });
      continue;
    }
    const t = Math.max(known.at, r.at);
    known.v = decayed(known.v, known.at, t, halfLife) + decayed(r.v, r.at, t, halfLife);
    known.at = t;
    known.first = Math.min(known.first, r.first);
    known.n += r.n;
    // Pages: the most read; key time: both customers' together.
    mergeDetail(known.d, r.d);
  }
  into.reasons.sort((a, b) => rankOf(b, halfLife) - rankOf(a, halfLife));
  if (into.reasons.length > REASONS_KEPT) into.reasons.length = REASONS_KEPT;
  if (from.riseAt > into.riseAt) {
    into.rise = from.rise;
    into.riseAt = from.riseAt;
  }
  if (from.last !== null && (into.last === null || from.last.at > into.last.at)) into.last = from.last;
  into.marks.lastViewAt = Math.max(into.marks.lastViewAt, from.marks.lastViewAt);
  const hotAt = Math.max(into.marks.hotAt ?? 0, from.marks.hotAt ?? 0);
  if (hotAt > 0) into.marks.hotAt = hotAt;
  into.marks.readings = [...into.marks.readings, ...from.marks.readings].sort((a, b) => b.at - a.at).slice(0, READINGS_KEPT);
  return into;
}
