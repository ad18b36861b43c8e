import { Clock } from '../../lib/time.ts';

/**
 * The `due` filters of the task list in a time zone (docs/tasks.md "Due"): `today` is the calendar
 * day holding now, `week` today and the six days after it, `overdue` anything before now. Days are
 * the zone's (daylight-saving days have 23 or 25 hours). Pure but for the zones' clocks it keeps.
 */
export type DueFilter = 'today' | 'overdue' | 'week';

/** `due_at` from (inclusive) and before (exclusive), epoch ms. */
export interface DueRange {
  from: number | null;
  before: number;
}

const ZONES_KEPT = 64;
const zones = new Map<string, Clock>();

/** A clock for an IANA zone, or null when the name is not one (Intl decides). */
export function zoneClock(timeZone: string): Clock | null {
  const known = zones.get(timeZone);
  if (known) return known;
  if (timeZone.length > 64) return null;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    return null;
  }
  const clock = new Clock(timeZone);
  if (zones.size >= ZONES_KEPT) zones.clear();
  zones.set(timeZone, clock);
  return clock;
}

/** The first instant of the day holding `ms` in the zone (a midnight a daylight-saving change skips: its first hour). */
export function dayStart(zone: Clock, ms: number): number {
  const day = zone.day(ms);
  return zone.parse(`${day} 00:00:00`) ?? zone.parse(`${day} 01:00:00`) ?? ms;
}

/** The range of due times a filter keeps at `now` in the zone. */
export function dueRange(filter: DueFilter, zone: Clock, now: number): DueRange {
  if (filter === 'overdue') return { from: null, before: now };
  const from = dayStart(zone, now);
  let before = zone.dayEnd(now);
  if (filter === 'week') for (let i = 1; i < 7; i += 1) before = zone.dayEnd(before);
  return { from, before };
}
