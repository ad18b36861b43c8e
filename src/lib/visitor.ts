import fs from 'node:fs';
import net from 'node:net';
import { isbot } from 'isbot';
import { type CityResponse, Reader } from 'maxmind';
import { UAParser } from 'ua-parser-js';
import { BoundedCache } from './bounded-cache.ts';

/**
 * Who a visitor's request comes from, as the records store it (docs/identity.md): the client from
 * the User-Agent (ua-parser-js 1.x), whether it is a bot (isbot), the place from an optional MaxMind
 * City database, and the address, truncated unless the operator keeps it whole.
 */
export interface Visitor {
  /** A crawler, link unfurler, mail scanner or headless browser: never counted as a view. */
  isBot: boolean;
  /** Browser (or app, such as WeChat) and its version. */
  clientName: string | null;
  clientVersion: string | null;
  os: string | null;
  osVersion: string | null;
  /** mobile, tablet or desktop. */
  device: 'mobile' | 'tablet' | 'desktop';
  /** `os osVersion` and `clientName clientMajor`, the view log's `system` and `client`. */
  system: string | null;
  client: string | null;
  /** The address as stored: truncated (IPv4 /24, IPv6 /48) unless IP_TRUNCATE is off. */
  ip: string | null;
  /** `country province city` joined by spaces, and its parts; null without GEOIP_DB or a match. */
  location: string | null;
  province: string | null;
  city: string | null;
}

/** The address without its host part: IPv4 to its /24 (`203.0.113.0`), IPv6 to its /48 (`2001:db8:1::`). */
export function truncateIp(address: string): string {
  const ip = unmapped(address);
  if (net.isIPv4(ip)) return ip.replace(/\.\d+$/, '.0');
  if (net.isIPv6(ip)) {
    const groups = expandIPv6(ip).slice(0, 3);
    return `${groups.map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::`;
  }
  return '';
}

/** `::ffff:203.0.113.9` as `203.0.113.9`; anything else unchanged. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? (m[1] as string) : address;
}

function expandIPv6(ip: string): string[] {
  const [head = '', tail] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (::ffff:1.2.3.4 forms other than the mapped one) counts as two groups.
  const last = right.length > 0 ? right[right.length - 1] : left[left.length - 1];
  if (last !== undefined && last.includes('.')) {
    const octets = last.split('.').map(Number);
    const pair = [((octets[0] ?? 0) << 8) | (octets[1] ?? 0), ((octets[2] ?? 0) << 8) | (octets[3] ?? 0)].map((n) => n.toString(16));
    if (right.length > 0) right.splice(right.length - 1, 1, ...pair);
    else left.splice(left.length - 1, 1, ...pair);
  }
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => g.toLowerCase());
}

/** Languages a MaxMind City database names places in (GEOIP_LANGUAGE). */
export const GEO_LANGUAGES = ['en', 'zh-CN', 'de', 'es', 'fr', 'ja', 'pt-BR', 'ru'] as const;
export type GeoLanguage = (typeof GEO_LANGUAGES)[number];

export interface VisitorOptions {
  /** Store addresses truncated (default) or whole. */
  truncateIps: boolean;
  /** A MaxMind City (or GeoLite2-City) database file; without one, places are null. */
  geoDatabase?: string | undefined;
  geoLanguage?: GeoLanguage;
}

/** Reads a MaxMind database file, or says why it cannot (a missing, unreadable or not-MaxMind file). */
export function openGeoDatabase(file: string): Reader<CityResponse> {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return new Reader<CityResponse>(bytes);
  } catch (e) {
    throw new Error(`${file} is not a MaxMind database: ${(e as Error).message}`);
  }
}

/** Describes visitors' requests; the geo database is read once, when this is made. */
export function createVisitorDescriber(options: VisitorOptions) {
  const geo = options.geoDatabase ? openGeoDatabase(options.geoDatabase) : null;
  const language = options.geoLanguage ?? 'en';

  function place(address: string): Pick<Visitor, 'location' | 'province' | 'city'> {
    const none = { location: null, province: null, city: null };
    if (geo === null || net.isIP(address) === 0) return none;
    let found: CityResponse | null;
    try {
      found = geo.get(address);
    } catch {
      // An IPv6 address against an IPv4-only database.
      return none;
    }
    if (!found) return none;
    const name = (names: Record<string, string> | undefined) => names?.[language] ?? names?.en ?? null;
    const country = name(found.country?.names as Record<string, string> | undefined);
    const province = name(found.subdivisions?.[0]?.names as Record<string, string> | undefined);
    const city = name(found.city?.names as Record<string, string> | undefined);
    const parts = [country, province, city].filter((p, i, all): p is string => p !== null && all.indexOf(p) === i);
    return { location: parts.length > 0 ? parts.join(' ') : null, province, city };
  }

  type Client = Pick<Visitor, 'isBot' | 'clientName' | 'clientVersion' | 'os' | 'osVersion' | 'device' | 'system' | 'client'>;
  function client(ua: string): Client {
    const parsed = new UAParser(ua).getResult();
    const clientName = parsed.browser.name ?? null;
    const clientVersion = parsed.browser.version ?? null;
    const os = parsed.os.name ?? null;
    const osVersion = parsed.os.version ?? null;
    const type = parsed.device.type;
    return {
      // No real browser sends no User-Agent.
      isBot: ua.trim() === '' || isbot(ua),
      clientName,
      clientVersion,
      os,
      osVersion,
      device: type === 'mobile' || type === 'wearable' ? 'mobile' : type === 'tablet' ? 'tablet' : 'desktop',
      system: os === null ? null : [os, osVersion].filter(Boolean).join(' '),
      client: clientName === null ? null : [clientName, parsed.browser.major].filter(Boolean).join(' '),
    };
  }
  // Parsing a User-Agent is most of describing a request, and a visitor's requests all bring the same
  // one: the descriptions of the most recent ones are kept (each is a new object for its caller).
  const clients = new BoundedCache<string, Client>(2_000);

  return {
    /** The visitor behind a request: its User-Agent header and its client address (after TRUST_PROXY). */
    describe(userAgent: string | undefined, address: string | undefined): Visitor {
      const ua = (userAgent ?? '').slice(0, 1024);
      const ip = address ? unmapped(address) : '';
      return {
        ...clients.get(ua, () => client(ua)),
        ip: ip === '' ? null : options.truncateIps ? truncateIp(ip) || null : ip,
        ...place(ip),
      };
    },
  };
}

export type VisitorDescriber = ReturnType<typeof createVisitorDescriber>;
