import { domainToASCII } from 'node:url';
import { fieldFailure } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import type { LinkRow } from './mapper.ts';

/*
 * A link's allow and deny lists (docs/links.md, "Who may pass the e-mail gate"): e-mail addresses and
 * domains, compared in one canonical form whatever was typed: lower case, the domain in ASCII
 * (IDNA), an address without its `+tag`. An entry is an address (`bob@acme.com`), a domain
 * (`acme.com` or `@acme.com`: that domain only), or a domain's subdomains (`*.acme.com`: `eu.acme.com`,
 * `a.eu.acme.com`, not `acme.com` itself).
 */

/** Entries one list holds at most. */
export const LIST_MAX_ENTRIES = 200;
/** Characters one entry has at most, as typed. */
const ENTRY_MAX = 254;

const DOMAIN_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)$/;

/** A domain in the form lists compare (ASCII, lower case, no final dot), or null when it is none. */
function canonicalDomain(text: string): string | null {
  const ascii = domainToASCII(text.replace(/\.$/, ''));
  return DOMAIN_RE.test(ascii) ? ascii : null;
}

/** An address in the form lists and codes compare: lower case, the domain in ASCII, no `+tag`; null when it is none. */
export function canonicalAddress(email: string): string | null {
  const text = email.trim().normalize('NFKC').toLowerCase();
  if (!isEmail(text)) return null;
  const at = text.lastIndexOf('@');
  const local = text.slice(0, at).split('+')[0] ?? '';
  const domain = canonicalDomain(text.slice(at + 1));
  return local === '' || domain === null ? null : `${local}@${domain}`;
}

/** One entry as stored, or null when it is neither an address nor a domain. */
function canonicalEntry(raw: string): string | null {
  const text = raw.trim().normalize('NFKC').toLowerCase();
  if (text === '' || text.length > ENTRY_MAX) return null;
  if (text.startsWith('*.')) {
    const domain = canonicalDomain(text.slice(2));
    return domain === null ? null : `*.${domain}`;
  }
  if (text.startsWith('@')) return canonicalDomain(text.slice(1));
  if (text.includes('@')) return canonicalAddress(text);
  return canonicalDomain(text);
}

/**
 * A list as given (an array, or text with entries separated by commas, semicolons or white space),
 * stored as JSON, null for an empty one; undefined when not given. Each entry is checked.
 */
export function parseAccessList(field: 'allow_list' | 'deny_list', value: string | string[] | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  const raw = (Array.isArray(value) ? value : value.split(/[,;\s]+/)).map((e) => e.trim()).filter((e) => e !== '');
  if (raw.length > LIST_MAX_ENTRIES) throw fieldFailure(field, 'invalid', `${field}: at most ${LIST_MAX_ENTRIES} entries`);
  const out: string[] = [];
  for (const entry of raw) {
    const canonical = canonicalEntry(entry);
    if (canonical === null) {
      throw fieldFailure(field, 'invalid', `${field}: ${JSON.stringify(entry.slice(0, 64))} is not an e-mail address or a domain`);
    }
    if (!out.includes(canonical)) out.push(canonical);
  }
  return out.length === 0 ? null : JSON.stringify(out);
}

/** A stored list's entries. */
export const listOf = (stored: string | null | undefined): string[] => (stored ? (JSON.parse(stored) as string[]) : []);

/** Whether a canonical address is on a list. */
function listed(list: readonly string[], address: string): boolean {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return list.some((e) => e === address || e === domain || (e.startsWith('*.') && domain.endsWith(e.slice(1))));
}

/**
 * Whether the link's lists let this address through its gate: not on the deny list (which wins), and
 * on the allow list when it has one. An address that is not one is not let through.
 */
export function admits(link: Pick<LinkRow, 'allow_list' | 'deny_list'>, email: string): boolean {
  const address = canonicalAddress(email);
  if (address === null) return false;
  if (listed(listOf(link.deny_list), address)) return false;
  const allow = listOf(link.allow_list);
  return allow.length === 0 || listed(allow, address);
}

/** Whether the link has a list (which needs the e-mail gate). */
export const hasAccessList = (link: Partial<Pick<LinkRow, 'allow_list' | 'deny_list'>>): boolean =>
  (link.allow_list ?? null) !== null || (link.deny_list ?? null) !== null;
