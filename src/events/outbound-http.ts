import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { connectChecked, hostOf, resolvePublic } from './ssrf.ts';

/**
 * The one client for HTTP requests the server makes to addresses its users give it (webhooks and
 * their test deliveries, notification channels' chat messages). Every connection goes through the SSRF guard (ssrf.ts): the host is
 * resolved once, every address checked, and the socket's connected address checked again before
 * the request is written. Redirects are not followed: a 3xx is the answer. The whole exchange has one
 * deadline, and the answer's body is read up to a small bound only (its status is what matters).
 */

export interface GuardedRequest {
  method: string;
  headers: Record<string, string | number>;
  body: string;
  /** The whole exchange: resolving, connecting, sending and the answer's headers and body. */
  timeoutMs: number;
  allowPrivate: boolean;
}

/** An answer's body is read up to this and then dropped: a receiver cannot keep the sender reading. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** A connected socket (TLS on top for https) to the first of the host's checked addresses that answers. */
async function openSocket(url: URL, allowPrivate: boolean, signal: AbortSignal): Promise<net.Socket> {
  const host = hostOf(url);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  // A resolver that does not answer holds the delivery no longer than its deadline.
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('abandoned'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => {});
  const addresses = await Promise.race([resolvePublic(host, allowPrivate), aborted]);
  let last: unknown = null;
  for (const address of addresses) {
    try {
      const socket = await connectChecked(address, port, allowPrivate, signal);
      if (url.protocol !== 'https:') return socket;
      // The certificate is checked against the URL's host, not the address connected to.
      return tls.connect({ socket, servername: net.isIP(host) === 0 ? host : undefined, host, ALPNProtocols: ['http/1.1'] });
    } catch (err) {
      last = err;
      if (signal.aborted) break;
    }
  }
  throw last instanceof Error ? last : new Error(`${host}: no address answered`);
}

/** Sends one request through the guard; resolves with the answer's status, rejects with why there was none. */
export async function guardedRequest(rawUrl: string, r: GuardedRequest): Promise<number> {
  return (await guardedExchange(rawUrl, r)).status;
}

/** An answer: its status, and its body as text up to 64 KiB (a chat platform says in it whether it took a message). */
export interface GuardedAnswer {
  status: number;
  body: string;
}

/** Sends one request through the guard; resolves with the answer's status and the start of its body, rejects with why there was none. */
export async function guardedExchange(rawUrl: string, r: GuardedRequest): Promise<GuardedAnswer> {
  const url = new URL(rawUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('url must use http or https');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${r.timeoutMs} ms`)), r.timeoutMs);
  timer.unref();
  try {
    const socket = await openSocket(url, r.allowPrivate, controller.signal);
    return await new Promise<GuardedAnswer>((resolve, reject) => {
      const req = http.request({
        method: r.method,
        path: `${url.pathname}${url.search}`,
        headers: { host: url.host, ...r.headers },
        createConnection: () => socket,
      });
      const stop = () => req.destroy(controller.signal.reason as Error);
      if (controller.signal.aborted) stop();
      controller.signal.addEventListener('abort', stop, { once: true });
      req.on('error', (err) => {
        controller.signal.removeEventListener('abort', stop);
        socket.destroy();
        reject(err);
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        const kept: Buffer[] = [];
        const done = () => {
          controller.signal.removeEventListener('abort', stop);
          socket.destroy();
          resolve({ status, body: Buffer.concat(kept).subarray(0, MAX_ANSWER_BYTES).toString('utf8') });
        };
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read <= MAX_ANSWER_BYTES) kept.push(chunk);
          if (read > MAX_ANSWER_BYTES) done();
        });
        res.on('end', done);
        res.on('error', done);
      });
      req.end(r.body);
    });
  } finally {
    clearTimeout(timer);
  }
}
