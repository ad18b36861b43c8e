import type { Clock } from '../../lib/time.ts';

/** A problem with one item of an ingestion batch; becomes `{index, msg}` in the answer. */
export class ItemError extends Error {}

/** Ids producers give their records (docs/interface.md §2): 1–64 chars of [A-Za-z0-9_.:-]. */
export const RECORD_ID_RE = /^[A-Za-z0-9_.:-]{1,64}$/;

const DEFAULT_MAX = 255;

/**
 * Reads one item's body field by field, with the types and lengths the interface documents.
 * Each reader returns null for an absent (or null) optional field and throws ItemError naming the
 * field otherwise, so validators read like the resource's field table.
 */
export class BodyReader {
  constructor(
    readonly body: Record<string, unknown>,
    private readonly clock: Clock,
  ) {}

  has(name: string): boolean {
    return this.body[name] !== undefined && this.body[name] !== null;
  }

  private missing(name: string, required: boolean): null {
    if (required) throw new ItemError(`${name} is required`);
    return null;
  }

  /** A string of at most `max` characters; numbers are not accepted as strings. */
  str(name: string, opts: { required?: boolean; max?: number } = {}): string | null {
    const v = this.body[name];
    if (v === undefined || v === null) return this.missing(name, opts.required ?? false);
    if (typeof v !== 'string') throw new ItemError(`${name} must be a string`);
    if (opts.required && v === '') throw new ItemError(`${name} is required`);
    if (v.length > (opts.max ?? DEFAULT_MAX)) throw new ItemError(`${name} must be at most ${opts.max ?? DEFAULT_MAX} characters`);
    return v;
  }

  /** A record id (string of [A-Za-z0-9_.:-], 1–64 chars). */
  id(name: string, opts: { required?: boolean } = {}): string | null {
    const v = this.str(name, { ...opts, max: 64 });
    if (v === null || v === '') return this.missing(name, opts.required ?? false);
    if (!RECORD_ID_RE.test(v)) throw new ItemError(`${name} must be 1-64 characters of A-Z a-z 0-9 _ . : -`);
    return v;
  }

  /** An integer; a string of digits is accepted too (the interface documents some ints as strings). */
  int(name: string, opts: { required?: boolean; min?: number; max?: number; oneOf?: readonly number[] } = {}): number | null {
    const v = this.body[name];
    if (v === undefined || v === null || v === '') return this.missing(name, opts.required ?? false);
    const n = typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new ItemError(`${name} must be an integer`);
    if (opts.oneOf && !opts.oneOf.includes(n)) throw new ItemError(`${name} must be one of ${opts.oneOf.join(', ')}`);
    if (opts.min !== undefined && n < opts.min) throw new ItemError(`${name} must be at least ${opts.min}`);
    if (opts.max !== undefined && n > opts.max) throw new ItemError(`${name} must be at most ${opts.max}`);
    return n;
  }

  /** A platform user id: a positive integer, given as a number or a string of digits. */
  userId(name: string, opts: { required?: boolean } = {}): number | null {
    const v = this.body[name];
    if (v === undefined || v === null || v === '') return this.missing(name, opts.required ?? false);
    if ((typeof v === 'string' && /^\d{1,10}$/.test(v)) || typeof v === 'number') {
      const n = Number(v);
      if (Number.isSafeInteger(n) && n >= 1 && n <= 2147483647) return n;
    }
    throw new ItemError(`${name} must be a platform user id (a positive integer)`);
  }

  /** A timestamp `yyyy-MM-dd HH:mm:ss` (server zone) or ISO 8601 with an offset; epoch ms. */
  time(name: string, opts: { required?: boolean } = {}): number | null {
    const v = this.body[name];
    if (v === undefined || v === null || v === '') return this.missing(name, opts.required ?? false);
    if (typeof v !== 'string') throw new ItemError(`${name} must be a timestamp string yyyy-MM-dd HH:mm:ss`);
    const ms = this.clock.parse(v);
    if (ms === null) throw new ItemError(`${name} must be a timestamp yyyy-MM-dd HH:mm:ss`);
    return ms;
  }

  /** An array of strings (e.g. link tags). */
  strings(name: string, opts: { maxItems: number; max: number }): string[] | null {
    const v = this.body[name];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === '' || x.length > opts.max)) {
      throw new ItemError(`${name} must be an array of non-empty strings of at most ${opts.max} characters`);
    }
    if (v.length > opts.maxItems) throw new ItemError(`${name} must have at most ${opts.maxItems} items`);
    return [...new Set(v as string[])];
  }

  /** The body's own id (`id`, or `postId` for posts) must equal the message's domainId when present. */
  matchId(field: string, domainId: string): void {
    const v = this.body[field];
    if (v === undefined || v === null) return;
    if (String(v) !== domainId) throw new ItemError(`body.${field} must equal domainId`);
  }

  /** `appId`, when present, must be the project the batch is posted to. */
  matchApp(appId: string): void {
    const v = this.body.appId;
    if (v !== undefined && v !== null && v !== appId) throw new ItemError('body.appId must be the project of the request path');
  }
}
