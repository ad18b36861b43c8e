import { Transform } from 'node:stream';
import { type FastifyInstance, errorCodes } from 'fastify';
import { bodyTooSlow } from './errors.ts';

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
 * - The route's `bodyLimit` for multipart bodies too (Fastify enforces it for the bodies it reads
 *   itself, JSON and forms; the multipart parser reads its own): over it, 413 `payload_too_large`,
 *   from `Content-Length` before anything is read, or as soon as the count passes it.
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
  app.addHook('preParsing', async (request, reply, payload) => {
    const limit = request.routeOptions.bodyLimit ?? BODY_LIMITS.default;
    const multipart = /^multipart\//i.test(request.headers['content-type'] ?? '');
    if (multipart && Number(request.headers['content-length']) > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
    if (request.raw.complete || (!multipart && rate.minBytesPerSecond <= 0)) return payload;

    let total = 0;
    let received = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        total += chunk.length;
        received += chunk.length;
        if (multipart && total > limit) callback(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        else callback(null, chunk);
      },
    });
    // Whoever reads the body hears its errors; when nobody does (the answer went out first), they are moot.
    counted.on('error', () => {});
    payload.once('error', (err) => counted.destroy(err));
    payload.pipe(counted);
    if (rate.minBytesPerSecond <= 0) return counted;

    const timer = setInterval(() => {
      if (received >= needed) {
        received = 0;
        return;
      }
      clearInterval(timer);
      payload.unpipe(counted);
      counted.destroy(bodyTooSlow(`The body arrived at under ${rate.minBytesPerSecond} bytes a second over ${rate.windowSeconds} s`));
    }, windowMs);
    timer.unref();
    const stop = () => clearInterval(timer);
    counted.once('end', stop);
    counted.once('close', stop);
    request.raw.once('close', stop);
    reply.raw.once('finish', stop);
    return counted;
  });
}
