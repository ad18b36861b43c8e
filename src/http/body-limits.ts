import { Transform } from 'node:stream';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, errorCodes } from 'fastify';
import { bodyTooSlow, lengthRequired } from './errors.ts';

/**
 * Request body limits (docs/conventions.md): larger bodies are answered 413 `payload_too_large`
 * (with `Connection: close`) before they are read. Routes say when they take more or less than
 * the default with their own `bodyLimit`; the ingestion endpoint's is its batch limit.
 */
export const BODY_LIMITS = {
  /** Every route that says nothing: a handful of fields. */
  default: 256 * 1024,
  /** The token, register and verification-code calls: a few short fields, sent by anyone. */
  oauth: 32 * 1024,
  /** A customer (many attributes of up to 10,000 characters) and the transfers of up to 1000 customers. */
  records: 1024 * 1024,
} as const;

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
