/**
 * Server-Sent Events read from a fetch body, since EventSource cannot send the token in a header
 * (docs/live.md). The parser follows the HTML standard's rules for the event stream format; the
 * reader reconnects with Last-Event-ID so nothing is missed.
 */

export interface SseMessage {
  /** The `id` field, when the message set one. */
  id: string | undefined;
  /** The `event` field, else "message". */
  event: string;
  data: string;
}

/** Turns chunks of an event stream, split anywhere, into messages. */
export class SseParser {
  private buffer = '';
  private afterCR = false;
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  /** The last `id` seen, sent back as Last-Event-ID when reconnecting. */
  lastEventId: string | undefined;
  /** The last `retry` hint (milliseconds), if any. */
  retry: number | undefined;

  push(chunk: string): SseMessage[] {
    // A CR that ended the previous chunk was a line end; the LF of its CRLF may start this one.
    if (this.afterCR && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCR = false;
    this.buffer += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      if (end < 0) break;
      const line = this.buffer.slice(0, end);
      const crlf = this.buffer.startsWith('\r\n', end);
      if (!crlf && this.buffer[end] === '\r' && end === this.buffer.length - 1) this.afterCR = true;
      this.buffer = this.buffer.slice(end + (crlf ? 2 : 1));
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    if (this.id !== undefined) this.lastEventId = this.id;
    const message = this.data.length === 0 ? undefined : { id: this.id, event: this.event || 'message', data: this.data.join('\n') };
    this.data = [];
    this.event = '';
    this.id = undefined;
    return message;
  }
}

export interface StreamOptions {
  url: string;
  /** The current access token (read at each connection). */
  token: () => string | undefined;
  /** A new access token after the server refused one, or undefined (then the stream stops). */
  renewToken: () => Promise<string | undefined>;
  onMessage: (message: SseMessage) => void;
  /** The stream is open (true) or down and about to retry (false). */
  onState?: (open: boolean) => void;
  signal: AbortSignal;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Reads the stream until `signal` aborts: reconnects after the server's retry hint (doubling while it
 * keeps failing, at most 30 s) with the last id received, and renews the token once when refused.
 */
export async function readEventStream(options: StreamOptions): Promise<void> {
  const parser = new SseParser();
  let failures = 0;
  while (!options.signal.aborted) {
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      const token = options.token();
      if (token) headers.authorization = `Bearer ${token}`;
      if (parser.lastEventId !== undefined) headers['last-event-id'] = parser.lastEventId;
      const res = await fetch(options.url, { headers, signal: options.signal, cache: 'no-store' });
      if (res.status === 403) {
        const body = (await res.json().catch(() => null)) as { error?: string } | null;
        // An expired token is renewed; a refusal of the member (forbidden) is final.
        if (body?.error !== 'access_denied' || (await options.renewToken()) === undefined) return;
        continue;
      }
      if (!res.ok || !res.body || !String(res.headers.get('content-type')).startsWith('text/event-stream')) {
        throw new Error(`live stream answered HTTP ${res.status}`);
      }
      options.onState?.(true);
      failures = 0;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const message of parser.push(value)) options.onMessage(message);
      }
    } catch {
      if (options.signal.aborted) return;
      failures += 1;
    }
    options.onState?.(false);
    const wait = Math.min((parser.retry ?? 2000) * 2 ** Math.max(0, failures - 1), 30_000);
    await sleep(wait, options.signal);
  }
}
