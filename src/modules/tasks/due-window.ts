import type { Clock } from '../../lib/time.ts';
import { dayStart } from '../../lib/zones.ts';

// Zones' clocks live in src/lib/zones.ts (the alerts' digest uses them too).
export { dayStart, zoneClock } from '../../lib/zones.ts';

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

/** The range of due times a filter keeps at `now` in the zone. */
export function dueRange(filter: DueFilter, zone: Clock, now: number): DueRange {
  if (filter === 'overdue') return { from: null, before: now };
  const from = dayStart(zone, now);
  let before = zone.dayEnd(now);
  if (filter === 'week') for (let i = 1; i < 7; i += 1) before = zone.dayEnd(before);
  return { from, before };
}
