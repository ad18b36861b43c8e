import dayjs from 'dayjs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServerTime, setServerTimeZone, toLocal, toServerTime } from './serverTime.ts';

const WIRE = 'YYYY-MM-DD HH:mm:ss';

describe('server timestamps', () => {
  afterEach(() => setServerTimeZone('UTC'));

  it('reads a timestamp in the server zone as dayjs’s timezone plugin does, every 7 hours over two years', () => {
    for (const zone of ['UTC', 'Asia/Shanghai', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata']) {
      setServerTimeZone(zone);
      for (let ms = Date.UTC(2025, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 7 * 3600_000 + 61_000) {
        const text = dayjs(ms).tz(zone).format(WIRE);
        const parsed = parseServerTime(text);
        expect(parsed?.valueOf(), `${zone} ${text}`).toBe(ms);
        // And back: what the user picks goes out as the server wrote it.
        expect(toServerTime(toLocal(parsed!))).toBe(text);
      }
    }
  });

  it('reads a time of a repeated hour as its earlier instant, and one of a skipped hour within the hour', () => {
    setServerTimeZone('America/New_York');
    // 2026-11-01 01:30 happens twice (EDT, then EST): the earlier is 05:30Z.
    expect(parseServerTime('2026-11-01 01:30:00')?.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    // 2026-03-08 02:30 does not exist; it is read as an instant an hour either side of it.
    const skipped = parseServerTime('2026-03-08 02:30:00')!.valueOf();
    expect(Math.abs(skipped - Date.parse('2026-03-08T07:00:00Z'))).toBeLessThanOrEqual(3600_000);
  });

  it('refuses what the API never writes', () => {
    for (const text of ['', '2026-02-30 10:00:00', '2026-01-01T10:00:00', '2026-01-01 24:00:00', '2026-1-1 10:00:00', 'now'])
      expect(parseServerTime(text), text).toBeUndefined();
    setServerTimeZone('Not/AZone');
    expect(parseServerTime('2026-01-01 10:00:00')).toBeUndefined();
  });
});
