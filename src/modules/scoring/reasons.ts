/*
 * A score's reasons as the API answers them (docs/scoring.md, "Reasons"): each of a customer's
 * largest contributions in English words and in a structured form a console translates. Pure but for
 * the clock's formatting in the server's zone.
 */
import type { Clock } from '../../lib/time.ts';
import { DAY_MS, type LastSignal, type Reason, type ReasonKind, decayed } from './points.ts';

/** Reasons an answer shows at most. */
export const REASONS_SHOWN = 5;

/** One reason as the API answers it. */
export interface ScoreReason {
  kind: ReasonKind;
  text: string;
  /** The points it counts for now (one decimal). */
  points: number;
  /** How many times it happened. */
  count: number;
  lastAt: string;
  firstAt: string;
  title?: string;
  fileId?: string;
  linkId?: string;
  pages?: number;
  pageCount?: number;
  keyPages?: number[];
  seconds?: number;
  url?: string;
  prefix?: string;
}

/** The latest signal that earned points, as the hot leads answer it. */
export interface SignalOut {
  kind: ReasonKind;
  action: string;
  at: string;
  points: number;
  title?: string;
  linkId?: string;
  fileId?: string;
  url?: string;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Points as answered: one decimal. */
export const rounded = (points: number): number => Math.round(points * 10) / 10;

/** When `at` was, from `now`, in the server's zone: today, yesterday, a weekday of the last week, or its date. */
function dayOf(clock: Clock, at: number, now: number): { word: string; kind: 'today' | 'yesterday' | 'weekday' | 'date' } {
  const day = clock.day(at);
  const days = Math.round((Date.parse(clock.day(now)) - Date.parse(day)) / DAY_MS);
  if (days <= 0) return { word: 'today', kind: 'today' };
  if (days === 1) return { word: 'yesterday', kind: 'yesterday' };
  if (days < 7) return { word: WEEKDAYS[new Date(Date.parse(day)).getUTCDay()] as string, kind: 'weekday' };
  return { word: day, kind: 'date' };
}

/**
 * The day a reason's words name, from `now` (its only occurrence's, or its first's): its kind, and the
 * day (`yyyy-MM-dd`, the server's zone) for a weekday or a date.
 */
export interface ReasonDay {
  kind: 'today' | 'yesterday' | 'weekday' | 'date';
  day: string;
}

function reasonDay(clock: Clock, r: Reason, now: number): ReasonDay & { word: string } {
  const at = r.n <= 1 ? r.at : r.first;
  return { ...dayOf(clock, at, now), day: clock.day(at) };
}

/** How often and since when: "today", "on Monday", "twice since Monday", "3 times since 2026-11-02". */
function whenPhrase(clock: Clock, r: Reason, now: number): string {
  const d = reasonDay(clock, r, now);
  if (r.n <= 1) return d.kind === 'weekday' || d.kind === 'date' ? `on ${d.word}` : d.word;
  const times = r.n === 2 ? 'twice' : `${r.n} times`;
  return d.kind === 'today' ? `${times} today` : `${times} since ${d.word}`;
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

const quoted = (title: string | undefined, otherwise: string) => (title === undefined ? otherwise : `'${title}'`);

/** What happened, without when: "read 8 of 10 pages of 'Pricing'". */
function what(r: Reason): string {
  const d = r.d;
  switch (r.kind) {
    case 'deck_read':
      return `read ${d.pages ?? 0} of ${d.of ?? 0} pages of ${quoted(d.title, 'a file')}`;
    case 'key_page': {
      const pages = d.keyPages ?? [];
      return `spent ${duration(d.ms ?? 0)} on key page${pages.length === 1 ? '' : 's'} ${pages.join(', ')} of ${quoted(d.title, 'a file')}`;
    }
    case 'site_key_page':
      return `visited the key page ${d.title === undefined ? (d.prefix ?? '') : `'${d.title}' (${d.prefix ?? ''})`}`;
    case 'mail_click':
      return 'clicked a link in a campaign mail';
    case 'form':
      return d.linkId === undefined ? 'filled in a form on the site' : `filled in the form of ${quoted(d.title, 'a shared link')}`;
    case 'return':
      return 'came back';
  }
}

/** A kept reason as answered at `now`. */
function present(clock: Clock, r: Reason, now: number, halfLife: number): ScoreReason {
  const d = r.d;
  const out: ScoreReason = {
    kind: r.kind,
    text: `${what(r)} ${whenPhrase(clock, r, now)}`,
    points: rounded(decayed(r.v, r.at, now, halfLife)),
    count: r.n,
    lastAt: clock.format(r.at),
    firstAt: clock.format(r.first),
  };
  if (d.title !== undefined) out.title = d.title;
  if (d.fileId !== undefined) out.fileId = d.fileId;
  if (d.linkId !== undefined) out.linkId = d.linkId;
  if (r.kind === 'deck_read') {
    out.pages = d.pages ?? 0;
    out.pageCount = d.of ?? 0;
  }
  if (r.kind === 'key_page') {
    out.keyPages = d.keyPages ?? [];
    out.seconds = Math.round((d.ms ?? 0) / 1000);
  }
  if (d.url !== undefined) out.url = d.url;
  if (d.prefix !== undefined) out.prefix = d.prefix;
  return out;
}

const largest = <T extends ScoreReason>(list: T[]): T[] =>
  list.sort((a, b) => b.points - a.points || (a.lastAt < b.lastAt ? 1 : -1)).slice(0, REASONS_SHOWN);

/** The largest reasons (at most REASONS_SHOWN), largest first, as answered at `now`. */
export function presentReasons(clock: Clock, reasons: Reason[], now: number, halfLife: number): ScoreReason[] {
  return largest(reasons.map((r) => present(clock, r, now, halfLife)));
}

/** A reason as a hot lead's announcement carries it: as answered, with the day its words name. */
export type AnnouncedReason = ScoreReason & { when: ReasonDay };

/** The largest reasons as a hot lead's announcement at `now` carries them (any language words them from their fields). */
export function announcedReasons(clock: Clock, reasons: Reason[], now: number, halfLife: number): AnnouncedReason[] {
  return largest(
    reasons.map((r) => {
      const { kind, day } = reasonDay(clock, r, now);
      return { ...present(clock, r, now, halfLife), when: { kind, day } };
    }),
  );
}

/** The latest signal as answered. */
export function presentSignal(clock: Clock, s: LastSignal): SignalOut {
  const out: SignalOut = { kind: s.kind, action: s.action, at: clock.format(s.at), points: rounded(s.points) };
  if (s.title !== undefined) out.title = s.title;
  if (s.linkId !== undefined) out.linkId = s.linkId;
  if (s.fileId !== undefined) out.fileId = s.fileId;
  if (s.url !== undefined) out.url = s.url;
  return out;
}
