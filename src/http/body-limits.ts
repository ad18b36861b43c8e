import { Transform } from 'node:stream';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, errorCodes } from 'fastify';
import { bodyTooSlow, lengthRequired } from './errors.ts';

/**
 * Request body limits (docs/operations.md "Body sizes", one row per route): larger bodies are
 * answered 413 `payload_too_large` (with `Connection: close`) before they are parsed. Every route
 * that reads a body says its own `bodyLimit` (test/http/body-limits.test.ts walks them); the ingestion
 * endpoint's is its batch limit, an upload's its file's.
 */
export const BODY_LIMITS = {
  /** Ids, names, flags: a few short fields, or none. */
  small: 16 * 1024,
  /** A few fields with longer text (a description, a webhook's URL list, a link's settings). */
  default: 256 * 1024,
  /** The token, register and verification-code calls: a few short fields, sent by anyone. */
  oauth: 32 * 1024,
  /** A customer (many attributes of up to 10,000 characters) and the transfers of up to 1000 customers. */
  records: 1024 * 1024,
  /** A campaign: its HTML (up to 512 KiB, escaped in JSON) and up to 100,000 recipient ids. */
  campaign: 4 * 1024 * 1024,
} as const;

/**
 * A body answered before it was read (too large, refused credentials or membership) is read and
 * dropped up to this many bytes before the answer goes out, so that a client still sending it gets
 * the answer rather than a reset; a longer one is cut off.
 */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const explicitLimits = new WeakMap<FastifyInstance, Map<string, number | undefined>>();

/**
 * Records each route's own `bodyLimit` (undefined: it said none) as routes are added; call before
 * any route. `routeBodyLimits` answers them: the test that every route sizes its body reads it.
 */
export function recordBodyLimits(app: FastifyInstance): void {
  const limits = new Map<string, number | undefined>();
  explicitLimits.set(app, limits);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (BODY_METHODS.has(method)) limits.set(`${method} ${route.url}`, route.bodyLimit);
  });
}

/** `METHOD url` of every route that reads a body, with the limit it gave itself. */
export function routeBodyLimits(app: FastifyInstance): ReadonlyMap<string, number | undefined> {
  return explicitLimits.get(app) ?? new Map();
}

export interface BodyRate {
  /** Bytes per second a body must keep up, measured over each window; 0: no minimum. */
  readonly minBytesPerSecond: number;
  readonly windowSeconds: number;
}

/**
 * Two guards on every request body, in one preParsing hook:
 *
 * - The route's `bodyLimit` for multipart bodies too. Fastify enforces it on the bodies it reads
 *   itself (JSON, forms); the multipart parser reads the request on its own, so a multipart body is
 *   held to it by its `Content-Length` (413 before anything is read), and one without (chunked) is
 *   refused with 411 `length_required`.
 * - A minimum body rate instead of a whole-request timeout: a large upload on a slow link may
 *   take as long as it needs while it keeps arriving, but a body that trickles in (a few bytes now
 *   and then, each just within IDLE_TIMEOUT) is cut off. Every window of `windowSeconds` must
 *   bring at least `minBytesPerSecond` × `windowSeconds` bytes; a window that brings less ends the
 *   request with HTTP 408 `body_too_slow` and the connection is closed (the rest of the body is
 *   never read). It applies to every route and content type, uploads included.
 *
 * A body that arrived whole with its headers costs neither a stream nor a timer.
 */
export function registerBodyGuards(app: FastifyInstance, rate: BodyRate): void {
  const windowMs = rate.windowSeconds * 1000;
  const needed = rate.minBytesPerSecond * rate.windowSeconds;
  const tooSlow = () => bodyTooSlow(`The body arrived at under ${rate.minBytesPerSecond} bytes a second over ${rate.windowSeconds} s`);

  /** Calls `fail` at the end of the first window in which `bytes()` grew by less than the minimum. */
  function watch(request: FastifyRequest, reply: FastifyReply, bytes: () => number, fail: () => void): () => void {
    let mark = bytes();
    const timer = setInterval(() => {
      const now = bytes();
      if (now - mark >= needed) {
        mark = now;
        return;
      }
      clearInterval(timer);
      fail();
    }, windowMs);
    timer.unref();
    const stop = () => clearInterval(timer);
    request.raw.once('close', stop);
    reply.raw.once('finish', stop);
    return stop;
  }

  /** Reads and drops what is left of a body; true when it ended, false when cut off (too long, too slow, broken). */
  function drain(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const raw = request.raw;
    return new Promise((resolve) => {
      let bytes = 0;
      let stop = () => {};
      const done = (whole: boolean) => {
        raw.off('data', onData).off('end', onEnd).off('error', onCut).off('close', onClose);
        stop();
        if (!whole) raw.pause();
        resolve(whole);
      };
      const onData = (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > DRAIN_MAX_BYTES) done(false);
      };
      const onEnd = () => done(true);
      const onCut = () => done(false);
      const onClose = () => done(raw.complete);
      // Whoever was reading it (a parser that gave up) lets go; the rest is counted and dropped.
      raw.unpipe();
      raw.on('data', onData).once('end', onEnd).once('error', onCut).once('close', onClose);
      if (rate.minBytesPerSecond > 0) stop = watch(request, reply, () => bytes, onCut);
      raw.resume();
    });
  }

  // An answer given before the body was read (too large, refused credentials or membership, unknown
  // path) waits until the client has sent the rest, read and dropped, up to DRAIN_MAX_BYTES: a
  // client still sending (a Node fetch) would otherwise get a reset (EPIPE) instead of the answer.
  // A longer body is cut off. The connection is closed after the answer either way.
  app.addHook('onSend', async (request, reply, payload) => {
    const raw = request.raw;
    const length = request.headers['content-length'];
    const hasBody = (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
    // Ended: whoever read the body read all of it.
    if (!hasBody || raw.readableEnded || raw.destroyed) return payload;
    reply.header('connection', 'close');
    // A body cut off for its rate (408) is not waited for again.
    if (reply.statusCode !== 408 && (length === undefined || Number(length) <= DRAIN_MAX_BYTES)) await drain(request, reply);
    return payload;
  });

  app.addHook('preParsing', async (request, reply, payload) => {
    if (/^multipart\//i.test(request.headers['content-type'] ?? '')) {
      const length = request.headers['content-length'];
      if (length === undefined && request.headers['transfer-encoding'] !== undefined) throw lengthRequired();
      if (Number(length) > (request.routeOptions.bodyLimit ?? BODY_LIMITS.default)) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
      if (request.raw.complete || rate.minBytesPerSecond <= 0) return payload;
      // The multipart parser reads the request itself and hears its errors: watch the connection's
      // byte count, and fail the request through it.
      const socket = request.raw.socket;
      watch(
        request,
        reply,
        () => socket.bytesRead,
        () => {
          if (request.raw.listenerCount('error') > 0) request.raw.emit('error', tooSlow());
          else request.raw.destroy();
        },
      );
      return payload;
    }
    if (request.raw.complete || rate.minBytesPerSecond <= 0) return payload;

    let received = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback(null, chunk);
      },
    });
    // Whoever reads the body hears its errors; when nobody does (the answer went out first), they are moot.
    counted.on('error', () => {});
    payload.once('error', (err) => counted.destroy(err));
    payload.pipe(counted);
    const stop = watch(
      request,
      reply,
      () => received,
      () => {
        payload.unpipe(counted);
        counted.destroy(tooSlow());
      },
    );
    counted.once('end', stop);
    counted.once('close', stop);
    return counted;
  });
}
