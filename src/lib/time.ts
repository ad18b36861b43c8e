/**
 * Timestamps: stored as epoch milliseconds, shown as `yyyy-MM-dd HH:mm:ss` in the configured zone
 * (decisions §1). Inputs in that format are read in the zone; ISO 8601 with an offset is accepted.
 */
export class Clock {
  private readonly formatter: Intl.DateTimeFormat | null;

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

  format(ms: number): string;
  format(ms: number | null | undefined): string | null;
  format(ms: number | null | undefined): string | null {
    if (ms === null || ms === undefined) return null;
    if (this.formatter === null) {
      const iso = new Date(ms).toISOString();
      return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
    }
    const p: Record<string, string> = {};
    for (const part of this.formatter.formatToParts(ms)) p[part.type] = part.value;
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  }

  /** Offset of the zone from UTC at the given instant, in milliseconds. */
  private offsetAt(ms: number): number {
    if (this.formatter === null) return 0;
    const shown = this.format(ms);
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
