import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Keeping outgoing calls off the server's own network (SSRF). Addresses are parsed and classified
 * with ipaddr.js, in every form they come in; a name is resolved once and the connection goes to an
 * address that was checked, and the address actually connected to is checked again before a byte is
 * written (Node skips a custom `lookup` for IP literals, so that alone is not enough).
 */

export class UnsafeAddressError extends Error {}

/** The IPv4 address of four bytes of `b` from `at`, each XORed with `xor` (Teredo's client is stored inverted). */
function ipv4At(b: number[], at: number, xor = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4([0, 1, 2, 3].map((i) => ((b[at + i] ?? 0) ^ xor) & 0xff));
}

/** The IPv4 addresses an IPv6 transition form carries, which is where a packet to it ends up; null for other forms. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const b = v6.toByteArray();
  switch (v6.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return [ipv4At(b, 12)];
    case 'rfc6052': // NAT64 64:ff9b::a.b.c.d; the local-use 64:ff9b:1::/48 (RFC 8215) is not public at all
      return v6.parts[2] === 0 ? [ipv4At(b, 12)] : null;
    case '6to4': // 2002:AABB:CCDD::
      return [ipv4At(b, 2)];
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client XOR ffffffff>
      return [ipv4At(b, 4), ipv4At(b, 12, 0xff)];
    default:
      break;
  }
  // IPv4-compatible ::a.b.c.d (deprecated; ipaddr.js calls it unicast). :: and ::1 are classified as they are.
  if (b.slice(0, 12).every((x) => x === 0) && !(b[12] === 0 && b[13] === 0 && b[14] === 0 && (b[15] ?? 0) <= 1)) {
    return [ipv4At(b, 12)];
  }
  return null;
}

/**
 * Why an address is not a public one (its range: `loopback`, `private`, `linkLocal`, `uniqueLocal`,
 * `carrierGradeNat`, `multicast`, `reserved`…, or `ipv4Mapped embedding loopback` for a form
 * carrying an IPv4 address), or null for a public unicast address. Anything that does not parse
 * as an address is not public.
 */
export function addressProblem(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded !== null) {
    const inner = embedded.map((v4) => v4.range()).find((range) => range !== 'unicast');
    return inner === undefined ? null : `${v6.range() === 'unicast' ? 'ipv4Compatible' : v6.range()} embedding ${inner}`;
  }
  const range = v6.range();
  return range === 'unicast' ? null : range;
}

/** True for loopback, private, link-local, unspecified, multicast and every other non-public address. */
export function isPrivateAddress(address: string): boolean {
  return addressProblem(address) !== null;
}

/** A URL's host as a name or address to resolve: without IPv6 brackets and trailing dots (`localhost.`). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

/** `localhost` and its subdomains are loopback by definition (RFC 6761), whatever a resolver answers. */
function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost');
}

/** A literal's canonical text, or null when `host` is a name. WHATWG URLs already turn 0x7f.1, 0177.0.0.1, 2130706433 and 127.1 into 127.0.0.1. */
function literalOf(host: string): string | null {
  return net.isIP(host) !== 0 || ipaddr.isValid(host) ? ipaddr.parse(host).toString() : null;
}

/**
 * The addresses to connect to for `host`, every one of them public unless `allowPrivate`: a literal
 * is itself, a name is resolved once (the connection then uses these addresses, so a name that
 * resolves differently later, DNS rebinding, cannot slip through).
 */
export async function resolvePublic(host: string, allowPrivate: boolean): Promise<string[]> {
  if (!allowPrivate && isLoopbackName(host)) throw new UnsafeAddressError(`${host} is a loopback name, a non-public address`);
  const literal = literalOf(host);
  const addresses = literal !== null ? [literal] : (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
  if (addresses.length === 0) throw new Error(`${host} did not resolve`);
  if (!allowPrivate) {
    const bad = addresses.map(addressProblem).find((p) => p !== null);
    if (bad !== undefined) throw new UnsafeAddressError(`${host} ${literal !== null ? 'is' : 'resolves to'} a non-public address (${bad})`);
  }
  return addresses;
}

/**
 * A TCP connection to `address` (a literal), handed over once connected and once the address the
 * socket is connected to is checked again: nothing is written to it before. `signal` abandons it.
 */
export function connectChecked(address: string, port: number, allowPrivate: boolean, signal: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port, noDelay: true });
    const settle = (err: Error | null) => {
      socket.off('error', settle);
      signal.removeEventListener('abort', onAbort);
      if (err === null) return resolve(socket);
      socket.destroy();
      reject(err);
    };
    const onAbort = () => settle(signal.reason instanceof Error ? signal.reason : new Error('connection abandoned'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', settle);
    socket.once('connect', () => {
      const remote = socket.remoteAddress ?? '';
      const problem = allowPrivate ? null : addressProblem(remote);
      settle(problem === null ? null : new UnsafeAddressError(`connected to a non-public address (${problem})`));
    });
  });
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
  try {
    await resolvePublic(hostOf(url), false);
  } catch (err) {
    if (err instanceof UnsafeAddressError) return 'url resolves to a loopback, private, link-local or otherwise non-public address';
    return 'url host does not resolve';
  }
  return null;
}
