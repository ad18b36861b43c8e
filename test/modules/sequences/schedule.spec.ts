import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Clock } from '../../../src/lib/time.ts';
import {
  type SendWindow,
  addCalendarDays,
  capDay,
  dueAfter,
  isoWeekday,
  localInstant,
  nextInWindow,
  nextWindowDay,
  validWindow,
} from '../../../src/modules/sequences/schedule.ts';

const WEEKDAYS: SendWindow = { start: 9 * 60, end: 17 * 60, days: [1, 2, 3, 4, 5] };
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Shanghai', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
const zone = (name: string) => new Clock(name);
const at = (z: Clock, text: string) => z.parse(text) as number;
/** The minutes past midnight the zone's clock shows at `ms`. */
const minutesShown = (z: Clock, ms: number) => {
  const t = z.format(ms);
  return Number(t.slice(11, 13)) * 60 + Number(t.slice(14, 16));
};

describe('sequence schedule', () => {
  it('knows ISO weekdays and calendar days', () => {
    expect(isoWeekday('2026-11-30')).toBe(1); // a Monday
    expect(isoWeekday('2026-12-06')).toBe(7);
    expect(addCalendarDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addCalendarDays('2028-02-28', 1)).toBe('2028-02-29');
  });

  it('checks windows', () => {
    expect(validWindow(WEEKDAYS)).toBe(true);
    expect(validWindow({ ...WEEKDAYS, days: [] })).toBe(false);
    expect(validWindow({ ...WEEKDAYS, start: 600, end: 600 })).toBe(false);
    expect(validWindow({ ...WEEKDAYS, days: [0] })).toBe(false);
    expect(validWindow({ start: 0, end: 1440, days: [7] })).toBe(true);
  });

  it('moves an instant into the window: before it, inside it, after it, at a weekend', () => {
    const ny = zone('America/New_York');
    // Monday 2026-11-30.
    expect(ny.format(nextInWindow(ny, at(ny, '2026-11-30 07:12:00'), WEEKDAYS))).toBe('2026-11-30 09:00:00');
    expect(ny.format(nextInWindow(ny, at(ny, '2026-11-30 10:30:05'), WEEKDAYS))).toBe('2026-11-30 10:30:05');
    expect(ny.format(nextInWindow(ny, at(ny, '2026-11-30 17:00:00'), WEEKDAYS))).toBe('2026-12-01 09:00:00');
    // Friday evening → Monday morning.
    expect(ny.format(nextInWindow(ny, at(ny, '2026-12-04 18:00:00'), WEEKDAYS))).toBe('2026-12-07 09:00:00');
    expect(ny.format(nextInWindow(ny, at(ny, '2026-12-05 12:00:00'), WEEKDAYS))).toBe('2026-12-07 09:00:00');
  });

  it('counts business days as the window days', () => {
    const utc = zone('UTC');
    // Friday 10:00 + 1 business day = Monday 10:00; + 5 = next Friday.
    expect(utc.format(dueAfter(utc, at(utc, '2026-12-04 10:00:00'), 1, WEEKDAYS))).toBe('2026-12-07 10:00:00');
    expect(utc.format(dueAfter(utc, at(utc, '2026-12-04 10:00:00'), 5, WEEKDAYS))).toBe('2026-12-11 10:00:00');
    // Enrolled on a Saturday evening: the first business day after is Monday, at the window's start; wait 0 too.
    expect(utc.format(dueAfter(utc, at(utc, '2026-12-05 20:00:00'), 1, WEEKDAYS))).toBe('2026-12-07 09:00:00');
    expect(utc.format(dueAfter(utc, at(utc, '2026-12-05 20:00:00'), 0, WEEKDAYS))).toBe('2026-12-07 09:00:00');
    // A wall time outside the window's hours is the window's start of that business day.
    expect(utc.format(dueAfter(utc, at(utc, '2026-12-07 16:59:00'), 2, WEEKDAYS))).toBe('2026-12-09 16:59:00');
    expect(utc.format(dueAfter(utc, at(utc, '2026-12-07 17:30:00'), 2, WEEKDAYS))).toBe('2026-12-09 09:00:00');
    expect(utc.format(dueAfter(utc, at(utc, '2026-12-07 06:00:00'), 2, WEEKDAYS))).toBe('2026-12-09 09:00:00');
  });

  it('keeps the wall time across daylight-saving changes', () => {
    const ny = zone('America/New_York');
    // 2027-03-14 is a spring-forward Sunday: Friday 10:00 EST + 1 business day = Monday 10:00 EDT.
    const monday = dueAfter(ny, at(ny, '2027-03-12 10:00:00'), 1, WEEKDAYS);
    expect(ny.format(monday)).toBe('2027-03-15 10:00:00');
    expect(monday - at(ny, '2027-03-12 10:00:00')).toBe(3 * 86_400_000 - 3_600_000);
    const berlin = zone('Europe/Berlin');
    // 2026-10-25 is a fall-back Sunday in Berlin.
    expect(berlin.format(dueAfter(berlin, at(berlin, '2026-10-23 09:15:00'), 1, WEEKDAYS))).toBe('2026-10-26 09:15:00');
  });

  it('takes a window edge the clock skips as the instant it jumps to', () => {
    const ny = zone('America/New_York');
    const skipped = localInstant(ny, '2027-03-14', 2 * 60 + 30);
    expect(ny.format(skipped)).toBe('2027-03-14 03:00:00');
    expect(ny.format(skipped - 1000)).toBe('2027-03-14 01:59:59');
    const sunday: SendWindow = { start: 150, end: 600, days: [7] };
    expect(ny.format(nextInWindow(ny, at(ny, '2027-03-14 00:10:00'), sunday))).toBe('2027-03-14 03:00:00');
    expect(ny.format(localInstant(ny, '2027-03-14', 1440))).toBe('2027-03-15 00:00:00');
  });

  it('moves a capped step to the next window day', () => {
    const sh = zone('Asia/Shanghai');
    expect(sh.format(nextWindowDay(sh, at(sh, '2026-12-04 10:00:00'), WEEKDAYS))).toBe('2026-12-07 09:00:00');
    expect(capDay(sh, at(sh, '2026-12-04 23:59:59'))).toBe('2026-12-04');
    expect(capDay(zone('UTC'), at(sh, '2026-12-04 23:59:59'))).toBe('2026-12-04');
    expect(capDay(zone('UTC'), at(sh, '2026-12-05 07:59:59'))).toBe('2026-12-04');
  });

  const windows = fc
    .record({
      start: fc.integer({ min: 0, max: 1439 }),
      length: fc.integer({ min: 1, max: 1440 }),
      days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
    })
    .map(({ start, length, days }) => ({ start, end: Math.min(1440, start + length), days }));
  const instants = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) });
  const zones = fc.constantFrom(...ZONES);

  it('puts every instant into the window, never earlier, and nothing inside the window moves', () => {
    fc.assert(
      fc.property(zones, instants, windows, (name, t, w) => {
        const z = zone(name);
        const next = nextInWindow(z, t, w);
        expect(next).toBeGreaterThanOrEqual(t);
        expect(w.days).toContain(isoWeekday(z.day(next)));
        const shown = minutesShown(z, next);
        const inside = shown >= w.start && (w.end === 1440 || shown < w.end);
        // The window's start may be a skipped wall time: then the first instant after the gap.
        expect(inside || next === localInstant(z, z.day(next), w.start)).toBe(true);
        // Nothing in between was inside the window: idempotent, and within eight days.
        expect(nextInWindow(z, next, w)).toBe(next);
        expect(next - t).toBeLessThan(8 * 86_400_000);
      }),
      { numRuns: 400 },
    );
  });

  it('waits exactly the business days asked for', () => {
    fc.assert(
      fc.property(zones, instants, windows, fc.integer({ min: 1, max: 30 }), (name, t, w, waitDays) => {
        const z = zone(name);
        const due = dueAfter(z, t, waitDays, w);
        expect(due).toBeGreaterThan(t);
        // Exactly `waitDays` window days after t's day, up to and including the due day.
        let count = 0;
        for (let d = addCalendarDays(z.day(t), 1); d <= z.day(due); d = addCalendarDays(d, 1))
          if (w.days.includes(isoWeekday(d))) count += 1;
        expect(count).toBe(waitDays);
        expect(nextInWindow(z, due, w)).toBe(due);
        // One step further never comes earlier.
        expect(dueAfter(z, t, waitDays + 1, w)).toBeGreaterThanOrEqual(due);
      }),
      { numRuns: 300 },
    );
  });
});
