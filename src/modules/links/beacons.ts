/**
 * The viewer's beacons (docs/links.md, "Beacons"): what a beacon may say, and how a view's dwell
 * moves on with one. Pure: no database, no clock of its own.
 */
import type { DurationRow, ViewRow } from './mapper.ts';

export const BEACON_TYPES = ['open', 'page', 'hb', 'hide', 'leave'] as const;
export type BeaconType = (typeof BEACON_TYPES)[number];

/** A beacon's body, at most this many bytes (the route's body limit). */
export const BEACON_MAX_BYTES = 8 * 1024;
/** The longest a page may be read in one view, as a client may claim it. */
const MAX_PAGE_MS = 24 * 3600 * 1000;
/** Sequence numbers a view may reach. */
const MAX_SEQ = 1_000_000;

export interface Beacon {
  type: BeaconType;
  /** 1, 2, 3, … per page load (a continued view's next page load goes on from the view's last). */
  seq: number;
  /** The view token the page (or the `open` answer) carries. */
  token: string;
  /** The page being read, from 1. */
  page: number;
  /** Milliseconds each page has been read so far in this view, as the client measured them (visible, not idle). */
  dwell: Map<number, number>;
}

/** Why a beacon is refused: its message. */
export class BeaconError extends Error {}

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/** A beacon's body as an object: JSON text (a `text/plain` body: sendBeacon sends no preflight) or an object already parsed. */
export function beaconObject(body: unknown): Record<string, unknown> {
  let value = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      value = JSON.parse(String(body)) as unknown;
    } catch {
      throw new BeaconError('The beacon is not JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BeaconError('The beacon must be a JSON object');
  return value as Record<string, unknown>;
}

/** The document a room link's beacon is about (`doc`: a file id of the room), or null for the room's own page. */
export function beaconDoc(b: Record<string, unknown>): string | null {
  if (b.doc === undefined || b.doc === null) return null;
  if (typeof b.doc !== 'string' || b.doc === '' || b.doc.length > 64) throw new BeaconError('doc must be the id of a document of the room');
  return b.doc;
}

/**
 * Reads a beacon from its body: JSON text or an object already parsed (`application/json`).
 * `pages`: how many pages the link (or the room's document) shows.
 */
export function parseBeacon(body: unknown, pages: number): Beacon {
  const b = beaconObject(body);
  if (typeof b.type !== 'string' || !(BEACON_TYPES as readonly string[]).includes(b.type)) {
    throw new BeaconError(`type must be one of ${BEACON_TYPES.join(', ')}`);
  }
  if (!isInt(b.seq, 1, MAX_SEQ)) throw new BeaconError(`seq must be an integer from 1 to ${MAX_SEQ}`);
  if (typeof b.token !== 'string' || b.token === '' || b.token.length > 1024) throw new BeaconError('token must be the view token');
  const page = b.page ?? 1;
  if (!isInt(page, 1, pages)) throw new BeaconError(`page must be an integer from 1 to ${pages}`);
  const dwell = new Map<number, number>();
  const raw = b.dwell ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BeaconError('dwell must be an object of page: milliseconds');
  for (const [key, ms] of Object.entries(raw as Record<string, unknown>)) {
    const n = /^\d{1,7}$/.test(key) ? Number(key) : NaN;
    if (!isInt(n, 1, pages)) throw new BeaconError(`dwell names page ${key.slice(0, 16)}; the link shows pages 1 to ${pages}`);
    if (!isInt(ms, 0, MAX_PAGE_MS)) throw new BeaconError(`dwell of page ${n} must be an integer of milliseconds from 0 to ${MAX_PAGE_MS}`);
    dwell.set(n, ms);
  }
  return { type: b.type as BeaconType, seq: b.seq, token: b.token, page, dwell };
}

/** A page's dwell as stored: its position among the view's durations, its time so far and when it was first read. */
export interface PageDwell {
  position: number;
  ms: number;
  firstAt: number;
}

/** The view's state a beacon moves on from. */
export interface DwellState {
  pages: Map<number, PageDwell>;
  /** When the view began (the first open). */
  viewTime: number;
  /** When its last beacon arrived. */
  lastBeaconAt: number;
  /** The view was closed (left, or silent for SILENT_VIEW_MS): the beacon reopens it, crediting nothing. */
  closed: boolean;
  /**
   * A room link's view: the pages of its other documents (`pages` are those of the document the
   * beacon is about), their time in all, how many, and the next free position among all.
   */
  others?: { ms: number; count: number; next: number };
}

/** A beacon's clock may run ahead of the server's by this much (network jitter, a beacon delayed behind the next). */
export const DWELL_SLACK_MS = 2000;
/** How often the viewer's script sends a heartbeat while the page is read (viewer/src/viewer.ts, HEARTBEAT_MS). */
export const HEARTBEAT_MS = 10_000;
/** The most one beacon credits: a heartbeat's interval, plus the slack. */
export const BEACON_CREDIT_MAX_MS = HEARTBEAT_MS + DWELL_SLACK_MS;

/**
 * What a beacon may credit in all: the wall time since the view's previous beacon, plus a quarter of
 * it as slack (at most DWELL_SLACK_MS: jitter, without letting beacons sent in quick succession add
 * up to more than the time between them), never more than one heartbeat's worth (BEACON_CREDIT_MAX_MS),
 * and nothing across a close: silence or a leave ended the view's reading, and a later beacon's
 * figures cannot say what happened meanwhile. The view's whole dwell stays within the time since
 * it began.
 */
function creditBudget(state: DwellState, now: number, stored: number, claimed: number): number {
  if (state.closed) return 0;
  const gap = Math.max(0, now - state.lastBeaconAt);
  const slack = Math.min(DWELL_SLACK_MS, gap / 4);
  return Math.max(0, Math.min(gap + slack, BEACON_CREDIT_MAX_MS, now - state.viewTime + DWELL_SLACK_MS - stored, claimed));
}

export interface DwellChange {
  /** Pages whose time grew or that are read for the first time, with their new state. */
  changed: Map<number, PageDwell>;
  /** Pages read for the first time in this view, in order. */
  firstRead: number[];
  /** The view's pages after the beacon (a room link's: those of the beacon's document). */
  pages: Map<number, PageDwell>;
  /** The view's time in all, and its pages read in all (a room link's: of every document). */
  totalMs: number;
  pageCount: number;
}

/**
 * The view's dwell after a beacon. The client's figures are totals per page: what they add to the
 * stored ones is accepted up to the beacon's budget (creditBudget), so a forged or replayed figure
 * cannot inflate it; when the client claims more, every page's increase is scaled down alike, and
 * what was not credited can be by later beacons, within theirs.
 * A figure below the stored one (a beacon overtaken by a later one) adds nothing. The page being read
 * counts as read once it has time, or when the beacon says it is shown.
 */
export function applyDwell(state: DwellState, beacon: Pick<Beacon, 'dwell' | 'page'>, now: number): DwellChange {
  const increases = new Map<number, number>();
  let claimed = 0;
  for (const [n, ms] of [...beacon.dwell].sort((a, b) => a[0] - b[0])) {
    const add = ms - (state.pages.get(n)?.ms ?? 0);
    if (add > 0) {
      increases.set(n, add);
      claimed += add;
    }
  }
  let stored = state.others?.ms ?? 0;
  for (const p of state.pages.values()) stored += p.ms;
  const budget = creditBudget(state, now, stored, claimed);
  const scale = claimed === 0 ? 0 : budget / claimed;
  const pages = new Map(state.pages);
  const changed = new Map<number, PageDwell>();
  const firstRead: number[] = [];
  let next = state.others?.next ?? 0;
  for (const p of state.pages.values()) next = Math.max(next, p.position + 1);
  const touch = (n: number, add: number) => {
    const before = pages.get(n);
    if (before === undefined) {
      const created = { position: next++, ms: add, firstAt: now };
      pages.set(n, created);
      changed.set(n, created);
      firstRead.push(n);
    } else if (add > 0) {
      const grown = { ...before, ms: before.ms + add };
      pages.set(n, grown);
      changed.set(n, grown);
    }
  };
  for (const [n, add] of increases) {
    const accepted = Math.floor(add * scale);
    if (accepted > 0 || pages.has(n)) touch(n, accepted);
    else if (n === beacon.page) touch(n, 0);
  }
  // Page 0: a room link's own page, which has no page being read.
  if (beacon.page > 0 && !pages.has(beacon.page)) touch(beacon.page, 0);
  let totalMs = state.others?.ms ?? 0;
  for (const p of pages.values()) totalMs += p.ms;
  return { changed, firstRead, pages, totalMs, pageCount: pages.size + (state.others?.count ?? 0) };
}

/**
 * A view's stored dwell, as a beacon moves it on. `doc`, for a room link's view: the document the
 * beacon is about (null: the room's own page); the other documents' pages are `others`.
 */
export function dwellStateOf(view: ViewRow, durations: DurationRow[], doc?: string | null): DwellState {
  const mine = doc === undefined ? durations : durations.filter((d) => d.file_id === doc);
  const state: DwellState = {
    pages: new Map(
      mine.map((d) => [
        Number(d.page_index),
        { position: d.position, ms: Number(d.duration ?? 0), firstAt: d.created_at ?? view.view_time },
      ]),
    ),
    viewTime: view.view_time,
    lastBeaconAt: view.beacon_at ?? view.view_time,
    closed: view.closed_at !== null,
  };
  if (doc !== undefined) {
    const others = { ms: 0, count: 0, next: 0 };
    for (const d of durations) {
      others.next = Math.max(others.next, d.position + 1);
      if (d.file_id === doc) continue;
      others.ms += Number(d.duration ?? 0);
      others.count += 1;
    }
    state.others = others;
  }
  return state;
}
