/**
 * The site snippet's collect calls (docs/site-tracking.md): what a call may say, read into checked
 * values. Pure: no database, no clock of its own.
 */

/** A collect call's body, at most this many bytes (the route's body limit). */
export const COLLECT_MAX_BYTES = 16 * 1024;
/** Events one call carries at most (the snippet batches fewer). */
const MAX_EVENTS = 50;
/** How far back an event's own time may lie: a batch held by a browser that slept is refused beyond it. */
export const MAX_EVENT_AGE_MS = 24 * 3600 * 1000;
/** The snippet's ids: its visitor id (22 characters of base64url), its visit and page ids. */
const ID_RE = /^[A-Za-z0-9_-]{8,64}$/;
/** Key behaviours the overview counts. */
export const KEY_BEHAVIOURS = ['submit_form', 'download_file', 'play_media', 'contact_service'] as const;
export type KeyBehaviour = (typeof KEY_BEHAVIOURS)[number];
/** A `track` call's own action: a name like the catalogue's. */
const TRACK_ACTION_RE = /^[a-z0-9_]{1,64}$/;
/** A `track` call's data, as JSON, at most this long. */
const TRACK_DATA_MAX = 2048;

export type SiteEvent =
  | { t: 'visit'; at: number; url: string; title: string; referrer: string; keyword: string }
  | { t: 'page'; id: string; at: number; url: string; title: string }
  | { t: 'leave'; id: string; at: number; url: string; title: string; since: number; visibleMs: number }
  | { t: 'act'; id: string; at: number; url: string; title: string; action: KeyBehaviour; target: string }
  | { t: 'track'; id: string; at: number; url: string; title: string; action: string; data: Record<string, unknown> | null };

export type Identify = { phone: string } | { email: string } | { customerId: string; hash: string };

export interface Collect {
  visitorId: string;
  visitId: string;
  /** A tracked e-mail click's token the landing URL carried (`rapport_click`). */
  click: string | null;
  /** A shared link's visitor hand-off the landing URL carried (`rapport_lv`), kept by the snippet. */
  handoff: string | null;
  events: SiteEvent[];
  /** The last `identify` of the call. */
  identify: Identify | null;
}

/** Why a call is refused: its message. */
export class CollectError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(v: unknown, name: string, max: number): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new CollectError(`${name} must be text`);
  // Longer text is cut, not refused: a page's title is the site's, not the visitor's, to keep short.
  return v.slice(0, max);
}

function id(v: unknown, name: string): string {
  if (typeof v !== 'string' || !ID_RE.test(v)) throw new CollectError(`${name} must be 8 to 64 characters of A-Z a-z 0-9 _ -`);
  return v;
}

/**
 * A URL as stored: http or https only, without credentials, fragment and query string except its
 * `utm_*` parameters; '' for anything else.
 */
export function cleanUrl(value: string): string {
  if (value === '') return '';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return '';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return '';
  const kept = new URLSearchParams();
  for (const [k, v] of u.searchParams) if (/^utm_[a-z_]{1,32}$/i.test(k)) kept.append(k, v);
  const query = kept.toString();
  return `${u.origin}${u.pathname}${query === '' ? '' : `?${query}`}`.slice(0, 2048);
}

/** The visit's host, as the overview lists a visit without a title. */
export function siteOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** An event's time: the client's, within [now - MAX_EVENT_AGE_MS, now]. */
function time(v: unknown, now: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new CollectError('at must be an integer of milliseconds since 1970');
  if (v < now - MAX_EVENT_AGE_MS) throw new CollectError('at is more than a day old');
  return Math.min(v, now);
}

function readIdentify(e: Record<string, unknown>): Identify {
  if (e.customerId !== undefined) {
    const customerId = text(e.customerId, 'customerId', 64);
    const hash = text(e.hash, 'hash', 128).toLowerCase();
    if (customerId === '' || !/^[0-9a-f]{64}$/.test(hash)) {
      throw new CollectError('identify by customerId needs hash: HMAC-SHA256(siteSecret, customerId) in hex');
    }
    return { customerId, hash };
  }
  const phone = text(e.phone, 'phone', 32).replace(/[\s-]/g, '');
  if (phone !== '') return { phone };
  const email = text(e.email, 'email', 255).trim();
  if (email !== '') return { email };
  throw new CollectError('identify needs phone, email, or customerId and hash');
}

function readEvent(e: unknown, now: number): SiteEvent | Identify {
  if (!isObject(e)) throw new CollectError('each event must be an object');
  if (e.t === 'identify') return readIdentify(e);
  const at = time(e.at, now);
  const url = cleanUrl(text(e.url, 'url', 4096));
  const title = text(e.title, 'title', 255);
  switch (e.t) {
    case 'visit':
      return { t: 'visit', at, url, title, referrer: cleanUrl(text(e.ref, 'ref', 4096)), keyword: text(e.kw, 'kw', 255) };
    case 'page':
      return { t: 'page', id: id(e.id, 'id'), at, url, title };
    case 'leave': {
      const since = time(e.since, now);
      const ms = e.ms;
      if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) throw new CollectError('ms must be a non-negative integer');
      // Visible time never exceeds the time the page was open.
      return {
        t: 'leave',
        id: id(e.id, 'id'),
        at,
        url,
        title,
        since: Math.min(since, at),
        visibleMs: Math.min(ms, at - Math.min(since, at)),
      };
    }
    case 'act': {
      const action = e.a;
      if (typeof action !== 'string' || !(KEY_BEHAVIOURS as readonly string[]).includes(action)) {
        throw new CollectError(`a must be one of ${KEY_BEHAVIOURS.join(', ')}`);
      }
      return { t: 'act', id: id(e.id, 'id'), at, url, title, action: action as KeyBehaviour, target: text(e.target, 'target', 255) };
    }
    case 'track': {
      const action = e.a;
      if (typeof action !== 'string' || !TRACK_ACTION_RE.test(action)) throw new CollectError('a must be 1 to 64 characters of a-z 0-9 _');
      const data = e.d ?? null;
      if (data !== null && !isObject(data)) throw new CollectError('d must be an object');
      if (data !== null && JSON.stringify(data).length > TRACK_DATA_MAX)
        throw new CollectError(`d must be at most ${TRACK_DATA_MAX} characters of JSON`);
      return { t: 'track', id: id(e.id, 'id'), at, url, title, action, data };
    }
    default:
      throw new CollectError('t must be one of visit, page, leave, act, track, identify');
  }
}

/** Reads a collect call: JSON text (sendBeacon's text/plain) or an object already parsed. */
export function parseCollect(body: unknown, now: number): Collect {
  let value = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      value = JSON.parse(String(body)) as unknown;
    } catch {
      throw new CollectError('The body is not JSON');
    }
  }
  if (!isObject(value)) throw new CollectError('The body must be a JSON object');
  const visitorId = id(value.v, 'v');
  const visitId = id(value.s, 's');
  const click = value.c === undefined || value.c === null ? null : text(value.c, 'c', 2048) || null;
  const handoff = value.l === undefined || value.l === null ? null : text(value.l, 'l', 1024) || null;
  const list = value.e ?? [];
  if (!Array.isArray(list) || list.length > MAX_EVENTS) throw new CollectError(`e must be an array of at most ${MAX_EVENTS} events`);
  const events: SiteEvent[] = [];
  let identify: Identify | null = null;
  for (const item of list) {
    const read = readEvent(item, now);
    if ('t' in read) events.push(read);
    else identify = read;
  }
  return { visitorId, visitId, click, handoff, events, identify };
}
