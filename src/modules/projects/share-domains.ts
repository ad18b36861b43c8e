import { isIP } from 'node:net';
import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import { projectsRepository as repo } from './repository.ts';

/** The longest host name DNS carries (RFC 1035: 253 characters written out). */
export const SHARE_DOMAIN_MAX = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A host name as a request names it, in the form share domains are kept in: lower-case, without
 * its port and without the trailing dot of a fully qualified name, or '' when it is none (empty, an
 * IPv6 literal). `Share.Example.COM.:443` and `share.example.com` are one host.
 */
export function hostOf(host: string): string {
  if (host.startsWith('[')) return '';
  const colon = host.indexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase().replace(/\.+$/, '');
}

/**
 * A share domain sent to the project edit (docs/projects.md, "Share domain"): a host name, kept
 * lower-case with IDN labels as punycode (`new URL` does both), without scheme, path, port or
 * credentials, not an IP address, not a single label (`localhost`, `intranet`), not the server's own
 * host, at most 253 characters; one trailing dot is dropped. '' clears it (null).
 * Throws share_domain_invalid.
 */
export function parseShareDomain(text: string, ownHosts: readonly string[]): string | null {
  const raw = text.trim();
  if (raw === '') return null;
  const refuse = (why: string) => failure('share_domain_invalid', `share_domain: ${raw.slice(0, 100)} ${why}`);
  // What the URL parser would read as something else than a host: a scheme, a path, a port, credentials.
  if (/[/\\?#@:\s%]/.test(raw)) throw refuse('is not a host name (no scheme, path, port or credentials: share.example.com)');
  let host: string;
  try {
    host = new URL(`https://${raw}`).hostname;
  } catch {
    throw refuse('is not a host name');
  }
  host = host.replace(/\.$/, '');
  if (isIP(host) !== 0 || /^[0-9.]+$/.test(host)) throw refuse('is an IP address: give a domain name');
  if (host.length > SHARE_DOMAIN_MAX) throw refuse(`is longer than ${SHARE_DOMAIN_MAX} characters`);
  const labels = host.split('.');
  if (labels.length < 2 || labels.some((l) => !LABEL.test(l))) throw refuse('is not a domain name (share.example.com)');
  if (labels.at(-1) === 'localhost') throw refuse('names this machine');
  if (ownHosts.includes(host)) throw refuse("is the server's own host (PUBLIC_BASE_URL)");
  return host;
}

/**
 * Which project claims a host, and where a project's public addresses start: the share domains
 * of every project, read at once into one map cached in the process until a project changes (the
 * `access` topic's epoch: an edit in any process empties it), so a request on any host costs no
 * read in steady state.
 */
export function createShareDomains(ctx: AppContext) {
  const base = ctx.config.publicBaseUrl;
  /** The server's own host (PUBLIC_BASE_URL's): never a share domain, whatever a project claims. */
  const ownHost = hostOf(new URL(base).host);

  return {
    /** The server's own host names, as `hostOf` writes them. */
    ownHosts: [ownHost] as readonly string[],

    /** The project whose share domain the host (a request's `Host`, any case, port or trailing dot) is, else null. */
    async projectOfHost(host: string): Promise<string | null> {
      const name = hostOf(host);
      if (name === '' || name === ownHost) return null;
      return (await repo.shareDomains(ctx.database)).byDomain.get(name) ?? null;
    },

    /** The project's share domain, or null. */
    async domainOf(appId: string): Promise<string | null> {
      return (await repo.shareDomains(ctx.database)).byProject.get(appId) ?? null;
    },

    /**
     * Where the project's public addresses start (its links, its campaign mails' tracking and
     * unsubscribe addresses, its site snippet): `https://{share domain}` when it has one, else
     * PUBLIC_BASE_URL. No trailing slash.
     */
    async publicBase(appId: string): Promise<string> {
      const domain = (await repo.shareDomains(ctx.database)).byProject.get(appId);
      return domain === undefined ? base : `https://${domain}`;
    },

    /** Every address the project's links may have been handed out at: PUBLIC_BASE_URL, and its share domain's. */
    async publicBases(appId: string): Promise<string[]> {
      const domain = (await repo.shareDomains(ctx.database)).byProject.get(appId);
      return domain === undefined ? [base] : [`https://${domain}`, base];
    },
  };
}

export type ShareDomains = ReturnType<typeof createShareDomains>;
