import dayjs, { type Dayjs } from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import relativeTime from 'dayjs/plugin/relativeTime';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import 'dayjs/locale/zh-cn';

dayjs.extend(utc);
dayjs.extend(timezone);
dayjs.extend(customParseFormat);
dayjs.extend(relativeTime);

const WIRE = 'YYYY-MM-DD HH:mm:ss';
const WIRE_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** The server's TIME_ZONE (from server-info): its `yyyy-MM-dd HH:mm:ss` timestamps are in it. */
let serverZone = 'UTC';

export function setServerTimeZone(zone: string): void {
  serverZone = zone;
}

export function serverTimeZone(): string {
  return serverZone;
}

/**
 * The wall clock of a zone at an instant, by one formatter per zone made once: a page of customers
 * reads dozens of timestamps, and dayjs's timezone plugin makes its formatting work again for each
 * (it was a tenth of the customer list's first render on a throttled phone).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function wallClock(zone: string, ms: number): number {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  const part: Record<string, number> = {};
  for (const p of f.formatToParts(ms)) if (p.type !== 'literal') part[p.type] = Number(p.value);
  return Date.UTC(part.year ?? 1970, (part.month ?? 1) - 1, part.day ?? 1, part.hour ?? 0, part.minute ?? 0, part.second ?? 0);
}

/** The instant a wall-clock time of `zone` names (the earlier one in a repeated hour), or NaN for an unknown zone. */
function instantOf(wall: number, zone: string): number {
  // The default zone needs no formatter (making the first one loads the zone data: tens of ms on a phone).
  if (zone === 'UTC' || zone === 'Etc/UTC') return wall;
  try {
    // The zone's offset near the time, then at the guess (right across a change of offset).
    const first = wall - (wallClock(zone, wall) - wall);
    return wall - (wallClock(zone, first) - first);
  } catch {
    return Number.NaN;
  }
}

/** A timestamp as the API writes it, read in the server's zone; undefined for a blank or malformed one. */
export function parseServerTime(text: string | null | undefined): Dayjs | undefined {
  if (!text) return undefined;
  const m = WIRE_PATTERN.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  // A date that does not exist (2026-02-30) is malformed, as the API would never write it.
  const check = new Date(wall);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = instantOf(wall, serverZone);
  return Number.isNaN(ms) ? undefined : dayjs(ms);
}

/** The user's own zone (the browser's), where times are shown: a parsed time already is in it. */
export function toLocal(t: Dayjs): Dayjs {
  return dayjs(t.valueOf());
}

export function setTimeLocale(language: string): void {
  dayjs.locale(language === 'zh-CN' ? 'zh-cn' : 'en');
}

/** A moment the user picked (in their zone), as the API takes it: `yyyy-MM-dd HH:mm:ss` in the server's zone. */
export function toServerTime(t: Dayjs): string {
  return t.tz(serverZone).format(WIRE);
}
