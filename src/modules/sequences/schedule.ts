import type { Clock } from '../../lib/time.ts';

/**
 * When a sequence's steps are due (docs/sequences.md "Running"): business days are the send window's
 * days, and every step is moved into the send window (hours and days) in the customer's zone. Days
 * are the zone's: a daylight-saving day has 23 or 25 hours, and a window edge the clock skips (02:30
 * on a spring-forward day) is the instant the clock jumps to. Pure: the zones' clocks are given.
 */

const MINUTES_IN_DAY = 1440;

/** A send window: minutes of the day [start, end) on the ISO weekdays (1 Monday … 7 Sunday) given. */
export interface SendWindow {
  start: number;
  end: number;
  days: readonly number[];
}

/** The ISO weekday (1 Monday … 7 Sunday) of a `yyyy-MM-dd` day. */
export function isoWeekday(day: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const w = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return w === 0 ? 7 : w;
}

/** The `yyyy-MM-dd` day `n` calendar days after `day`. */
export function addCalendarDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** Whether the window is one a schedule can be made with: at least one day, start before end. */
export function validWindow(w: SendWindow): boolean {
  return (
    Number.isInteger(w.start) &&
    Number.isInteger(w.end) &&
    w.start >= 0 &&
    w.end <= MINUTES_IN_DAY &&
    w.start < w.end &&
    w.days.length > 0 &&
    w.days.every((d) => Number.isInteger(d) && d >= 1 && d <= 7)
  );
}

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00`;

/**
 * The first instant of `day` at which the zone's clock shows `minutes` past midnight or later: the
 * wall time itself, or, when a daylight-saving change skips it, the instant the clock jumps past it.
 * `minutes` 1440 is the next day's first instant.
 */
export function localInstant(zone: Clock, day: string, minutes: number): number {
  if (minutes >= MINUTES_IN_DAY) return localInstant(zone, addCalendarDays(day, 1), 0);
  const wanted = `${day} ${hhmm(minutes)}`;
  const guess = zone.parse(wanted);
  if (guess === null) throw new Error(`not a day: ${day}`);
  if (zone.format(guess) === wanted) return guess;
  // The wall time does not exist: the first instant shown later than it (a gap is at most a few hours).
  let lo = guess - 4 * 3_600_000;
  let hi = guess + 4 * 3_600_000;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (zone.format(mid) >= wanted) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The first instant at or after `at` inside the window, in the zone. */
export function nextInWindow(zone: Clock, at: number, w: SendWindow): number {
  let day = zone.day(at);
  // Eight days hold every weekday: a valid window has one of them.
  for (let i = 0; i < 8; i += 1, day = addCalendarDays(day, 1)) {
    if (!w.days.includes(isoWeekday(day))) continue;
    const start = localInstant(zone, day, w.start);
    const end = localInstant(zone, day, w.end);
    if (at < start) return start;
    if (at < end) return at;
  }
  throw new Error('the send window has no day');
}

/**
 * When a step waiting `waitDays` business days after `from` is due (0: `from` moved into the window).
 * Otherwise on the `waitDays`-th window day after the day of `from` (a day that is not a window day
 * does not count, so five business days after a Friday is the next Friday), at the wall time of
 * `from` when that is inside the window's hours, else at the window's start: a wait always ends on
 * the business day it names.
 */
export function dueAfter(zone: Clock, from: number, waitDays: number, w: SendWindow): number {
  if (waitDays <= 0) return nextInWindow(zone, from, w);
  const shown = zone.format(from);
  let day = shown.slice(0, 10);
  for (let left = waitDays; left > 0;) {
    day = addCalendarDays(day, 1);
    if (w.days.includes(isoWeekday(day))) left -= 1;
  }
  const minutes = Number(shown.slice(11, 13)) * 60 + Number(shown.slice(14, 16));
  if (minutes < w.start || minutes >= w.end) return localInstant(zone, day, w.start);
  const due = localInstant(zone, day, minutes) + Number(shown.slice(17, 19)) * 1000;
  // A wall time the clock skips that day may land past the window's end: the window's start then.
  return due < localInstant(zone, day, w.end) ? due : localInstant(zone, day, w.start);
}

/** The start of the window on the next window day after the day holding `at` (a capped step's new time). */
export function nextWindowDay(zone: Clock, at: number, w: SendWindow): number {
  return nextInWindow(zone, zone.dayEnd(at), w);
}

/** The day a daily cap counts a step in: the day holding `at` in the sending member's zone, `yyyy-MM-dd`. */
export function capDay(zone: Clock, at: number): string {
  return zone.day(at);
}
