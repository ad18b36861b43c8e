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

/** The server's TIME_ZONE (from server-info): its `yyyy-MM-dd HH:mm:ss` timestamps are in it. */
let serverZone = 'UTC';

export function setServerTimeZone(zone: string): void {
  serverZone = zone;
}

export function serverTimeZone(): string {
  return serverZone;
}

/** A timestamp as the API writes it, read in the server's zone; undefined for a blank or malformed one. */
export function parseServerTime(text: string | null | undefined): Dayjs | undefined {
  if (!text) return undefined;
  const t = dayjs.tz(text, WIRE, serverZone);
  return t.isValid() ? t : undefined;
}

/** The user's own zone (the browser's), where times are shown. */
export function toLocal(t: Dayjs): Dayjs {
  return t.tz(dayjs.tz.guess());
}

export function setTimeLocale(language: string): void {
  dayjs.locale(language === 'zh-CN' ? 'zh-cn' : 'en');
}

/** A moment the user picked (in their zone), as the API takes it: `yyyy-MM-dd HH:mm:ss` in the server's zone. */
export function toServerTime(t: Dayjs): string {
  return t.tz(serverZone).format(WIRE);
}
