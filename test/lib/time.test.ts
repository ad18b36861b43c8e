// lanes: sqlite
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/lib/time.ts';

// Clock.format builds the text by arithmetic from an offset remembered per hour; Intl's
// formatToParts (formatSlowly) is the reference it must agree with, to the second, in every zone.
const ZONES = [
  'UTC',
  'Asia/Shanghai', // +08:05:43 local mean time before 1901
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe', // 30-minute daylight saving
  'Asia/Kathmandu', // +05:45
  'America/St_Johns', // -03:30 with daylight saving
  'Pacific/Chatham', // +12:45 / +13:45
  'Pacific/Apia', // skipped 2011-12-30 entirely
];

/** Instants that cross every kind of transition: random ones, and each minute around known ones. */
function instants(): number[] {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const out: number[] = [];
  const from = Date.UTC(1890, 0, 1);
  const to = Date.UTC(2080, 0, 1);
  for (let i = 0; i < 3000; i++) out.push(Math.floor(from + random() * (to - from)));
  const transitions = [
    Date.UTC(2026, 2, 8, 7), // New York, spring forward
    Date.UTC(2026, 10, 1, 6), // New York, fall back
    Date.UTC(2026, 2, 29, 1), // London
    Date.UTC(2026, 9, 25, 1),
    Date.UTC(2026, 3, 4, 15), // Lord Howe, 02:00 local
    Date.UTC(2011, 11, 29, 10), // Apia's missing day
    Date.UTC(1900, 11, 31, 15, 54, 17), // Shanghai leaves local mean time
  ];
  for (const t of transitions) for (let m = -90; m <= 90; m++) out.push(t + m * 60_000 + (m % 7) * 131);
  out.push(0, -1, -500, 1, 999, 1000, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2028, 1, 29, 12));
  out.push(Date.UTC(999, 0, 1), Date.UTC(10_000, 0, 1), -8.64e15, 8.64e15); // outside the fast range
  return out;
}

describe('Clock.format', () => {
  const all = instants();
  for (const zone of ZONES) {
    it(`agrees with Intl in ${zone}, to the second`, () => {
      const clock = new Clock(zone);
      const reference = new Clock(zone);
      const wrong = all.filter((ms) => clock.format(ms) !== reference.formatSlowly(ms));
      expect(wrong.map((ms) => [new Date(ms).toISOString(), clock.format(ms), reference.formatSlowly(ms)])).toEqual([]);
    });
  }

  it('reads back what it shows (whole seconds)', () => {
    for (const zone of ['Asia/Shanghai', 'America/New_York', 'UTC']) {
      const clock = new Clock(zone);
      for (const ms of [Date.UTC(2026, 5, 1, 12, 30, 15), Date.UTC(2026, 0, 15, 3, 4, 5)]) {
        expect(clock.parse(clock.format(ms))).toBe(ms);
      }
    }
  });

  it('keeps null for a missing time', () => {
    expect(new Clock('Asia/Shanghai').format(null)).toBeNull();
    expect(new Clock('UTC').format(undefined)).toBeNull();
  });
});
