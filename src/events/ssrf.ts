import dns from 'node:dns';
import net from 'node:net';

/** True for loopback, private, link-local, unspecified, multicast and other non-public addresses. */
export function isPrivateAddress(address: string): boolean {
  const v = net.isIP(address);
  if (v === 4) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0) ||
      (a === 198 && (b === 18 || b === 19)) ||
      a >= 224
    );
  }
  if (v === 6) {
    const lower = address.toLowerCase();
    if (lower === '::' || lower === '::1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped?.[1]) return isPrivateAddress(mapped[1]);
    return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(lower);
  }
  return true;
}

export class UnsafeAddressError extends Error {}

/**
 * A `lookup` for http.request that refuses hosts resolving to non-public addresses: the check and
 * the connection use the same answer, so DNS rebinding between them cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (!allowPrivate && bad) {
        return callback(new UnsafeAddressError(`${hostname} resolves to a non-public address`), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} did not resolve`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** Registration-time check of a webhook URL: http(s), and a public address unless allowed. */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  if (url.username || url.password) return 'url must not carry credentials';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  try {
    const addresses = net.isIP(host) ? [{ address: host }] : await dns.promises.lookup(host, { all: true });
    if (addresses.some((a) => isPrivateAddress(a.address))) return 'url resolves to a loopback, private or link-local address';
  } catch {
    return 'url host does not resolve';
  }
  return null;
}
