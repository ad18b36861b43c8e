/** The pure parts of notes and tasks: the mention syntax, and the due filters in a time zone. */
import { describe, expect, it } from 'vitest';
import { Clock } from '../../../src/lib/time.ts';
import { dayStart, dueRange, zoneClock } from '../../../src/modules/tasks/due-window.ts';
import { mentionedIds } from '../../../src/modules/tasks/mentions.ts';

describe('mentions', () => {
  it('reads @[label](member:id) links, each id once, in order', () => {
    expect(mentionedIds('Hi @[Li Lei](member:42) and @[Han](member:7), again @[Li](member:42)')).toEqual([42, 7]);
  });

  it('leaves anything else as text', () => {
    for (const text of [
      '@42',
      '@[x](user:1)',
      '@[](member:1)',
      '@[a\nb](member:1)',
      '[a](member:1)',
      '@[a](member:0)',
      '@[a](member:12345678901)',
    ]) {
      expect(mentionedIds(text), text).toEqual([]);
    }
  });
});

describe('due windows', () => {
  const utc = new Clock('UTC');
  const at = (iso: string) => Date.parse(iso);

  it('today, week and overdue in the zone asked for', () => {
    const now = at('2026-03-10T20:00:00Z');
    expect(dueRange('today', utc, now)).toEqual({ from: at('2026-03-10T00:00:00Z'), before: at('2026-03-11T00:00:00Z') });
    expect(dueRange('week', utc, now)).toEqual({ from: at('2026-03-10T00:00:00Z'), before: at('2026-03-17T00:00:00Z') });
    expect(dueRange('overdue', utc, now)).toEqual({ from: null, before: now });
    const shanghai = zoneClock('Asia/Shanghai') as Clock;
    expect(dueRange('today', shanghai, now)).toEqual({ from: at('2026-03-10T16:00:00Z'), before: at('2026-03-11T16:00:00Z') });
  });

  it('a day of a daylight-saving change has its own length', () => {
    const berlin = zoneClock('Europe/Berlin') as Clock;
    // 29 March 2026: clocks go from 02:00 to 03:00, a day of 23 hours.
    const r = dueRange('today', berlin, at('2026-03-29T12:00:00Z'));
    expect(r).toEqual({ from: at('2026-03-28T23:00:00Z'), before: at('2026-03-29T22:00:00Z') });
    expect(dayStart(berlin, at('2026-10-25T12:00:00Z'))).toBe(at('2026-10-24T22:00:00Z'));
  });

  it('knows IANA zones only', () => {
    expect(zoneClock('Europe/Berlin')?.timeZone).toBe('Europe/Berlin');
    for (const bad of ['Mars/Olympus', '', 'x'.repeat(65), 'UTC+99']) expect(zoneClock(bad), bad).toBeNull();
  });
});
