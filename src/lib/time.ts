/**
 * Timestamps: stored as epoch milliseconds, shown as `yyyy-MM-dd HH:mm:ss` in the configured zone
 * (docs/interface.md §2). Inputs in that format are read in the zone; ISO 8601 with an offset is accepted.
 */
const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Instants formatted by arithmetic (years 1000–9999); others take Intl's way. */
const FAST_FROM = Date.UTC(1000, 0, 2);
const FAST_TO = Date.UTC(9999, 11, 30);
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
/** Hours whose zone offset is remembered; a transition inside an hour is marked NaN (slow path). */
const OFFSET_CACHE_SIZE = 4096;

export class Clock {
  private readonly formatter: Intl.DateTimeFormat | null;
  private readonly offsets = new Map<number, number>();
  private cachedDay = NaN;
  private cachedDate = '';

  constructor(readonly timeZone: string) {
    this.formatter =
      timeZone === 'UTC'
        ? null
        : new Intl.DateTimeFormat('en-CA', {
            timeZone,
            hourCycle: 'h23',
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
            hour: '2-digit',
            minute: '2-digit',
            second: '2-digit',
          });
  }

  now(): number {
    return Date.now();
  }

  /**
   * Calls `fn` once `ms` have passed on this clock; the returned function cancels it. The timer does
   * not keep the process alive. Background work waits through here, so a test's clock can move it.
   */
  after(ms: number, fn: () => void): () => void {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  }

  /**
   * Every timestamp of every response goes through here (a customer page has 40), and Intl's
   * formatToParts costs ~5 µs a call. The zone's offset is looked up once per
   * hour of time and remembered; the text is built by arithmetic, the date part once per day.
   */
  format(ms: number): string;
  format(ms: number | null | undefined): string | null;
  format(ms: number | null | undefined): string | null {
    if (ms === null || ms === undefined) return null;
    const offset = ms >= FAST_FROM && ms < FAST_TO ? this.cachedOffset(ms) : NaN;
    if (Number.isNaN(offset)) return this.formatSlowly(ms);
    const local = ms + offset;
    const day = Math.floor(local / DAY);
    if (day !== this.cachedDay) {
      this.cachedDay = day;
      this.cachedDate = `${new Date(day * DAY).toISOString().slice(0, 10)} `;
    }
    const second = Math.floor((local - day * DAY) / SECOND);
    return `${this.cachedDate}${TWO_DIGITS[Math.floor(second / 3600)]}:${TWO_DIGITS[Math.floor(second / 60) % 60]}:${TWO_DIGITS[second % 60]}`;
  }

  /** The day holding `ms` in the zone, `yyyy-MM-dd`. */
  day(ms: number): string {
    return this.format(ms).slice(0, 10);
  }

  /** When the day holding `ms` ends in the zone: the next day's first instant. */
  dayEnd(ms: number): number {
    const [y, m, d] = this.day(ms).split('-').map(Number) as [number, number, number];
    const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
    const start = this.parse(`${next} 00:00:00`);
    return start !== null && start > ms ? start : ms + DAY;
  }

  /** The zone's rendering through Intl (the reference the fast path is tested against). */
  formatSlowly(ms: number): string {
    if (this.formatter === null) {
      const iso = new Date(ms).toISOString();
      return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
    }
    const p: Record<string, string> = {};
    for (const part of this.formatter.formatToParts(ms)) p[part.type] = part.value;
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  }

  /** The offset for the hour holding `ms`, or NaN when the offset changes inside that hour. */
  private cachedOffset(ms: number): number {
    if (this.formatter === null) return 0;
    const hour = Math.floor(ms / HOUR);
    let offset = this.offsets.get(hour);
    if (offset === undefined) {
      const first = this.offsetAt(hour * HOUR);
      offset = first === this.offsetAt(hour * HOUR + HOUR - 1) ? first : NaN;
      if (this.offsets.size >= OFFSET_CACHE_SIZE) this.offsets.clear();
      this.offsets.set(hour, offset);
    }
    return offset;
  }

  /** Offset of the zone from UTC at the given instant, in milliseconds. */
  private offsetAt(ms: number): number {
    if (this.formatter === null) return 0;
    const shown = this.formatSlowly(ms);
    return Date.parse(`${shown.replace(' ', 'T')}Z`) - Math.floor(ms / 1000) * 1000;
  }

  /**
   * Parses `yyyy-MM-dd HH:mm:ss` (in the zone) or ISO 8601 with an offset or Z. Returns null for
   * anything else, including impossible dates such as 2026-02-30.
   */
  parse(text: string): number | null {
    const local = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?$/.exec(text);
    if (local) {
      const [, y, mo, d, h, mi, s, frac] = local;
      const asUtc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
      const check = new Date(asUtc);
      if (
        check.getUTCFullYear() !== Number(y) ||
        check.getUTCMonth() !== Number(mo) - 1 ||
        check.getUTCDate() !== Number(d) ||
        Number(h) > 23 ||
        Number(mi) > 59 ||
        Number(s) > 59
      ) {
        return null;
      }
      const millis = frac ? Math.round(Number(frac) * 1000) : 0;
      // Two passes settle the offset across a daylight-saving change.
      let guess = asUtc - this.offsetAt(asUtc);
      guess = asUtc - this.offsetAt(guess);
      return guess + millis;
    }
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
      const ms = Date.parse(text);
      return Number.isFinite(ms) ? ms : null;
    }
    return null;
  }
}
