import { Clock } from './time.ts';

/**
 * Clocks of IANA time zones other than the server's: a task list's "today" in the requester's zone
 * (docs/tasks.md "Due"), a member's daily digest at their local hour (docs/alerts.md "Digest").
 * Days are the zone's: daylight-saving days have 23 or 25 hours.
 */

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

/**
 * The first instant after `after` at which the zone's clock shows `hour`:00:00 (0–23). An hour a
 * daylight-saving change skips comes as the instant the clock jumps to (02:00 on a spring-forward
 * day is 03:00); an hour that happens twice, at its first.
 */
export function nextLocalHour(zone: Clock, after: number, hour: number): number {
  const hh = String(hour).padStart(2, '0');
  let probe = after;
  for (let i = 0; i < 3; i += 1) {
    const at = zone.parse(`${zone.day(probe)} ${hh}:00:00`);
    if (at !== null && at > after) return at;
    probe = zone.dayEnd(probe);
  }
  return after + 24 * 3_600_000;
}
