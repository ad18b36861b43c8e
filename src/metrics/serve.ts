import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True when the Authorization header is `Bearer <token>` (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return m !== null && timingSafeEqual(digest(m[1] as string), digest(token));
}

/** The answer to a scrape without the token: the API's answer to a missing or bad token (403 access_denied). */
export const METRICS_DENIED = { error: 'access_denied', error_description: 'A valid metrics token is required' } as const;

export interface MetricsSource {
  text(): Promise<string>;
  readonly contentType: string;
}

/**
 * METRICS_PORT: a plain HTTP server answering `GET /metrics` with the token, 403 without it,
 * 404 for any other path. Resolves once listening; `close()` stops it.
 */
export async function startMetricsServer(options: {
  port: number;
  host: string;
  token: string;
  source: MetricsSource;
  onError(err: unknown): void;
}): Promise<{ close(): Promise<void> }> {
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0]?.replace(/\/+$/, '');
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      json(res, 404, { error: 'not_found', error_description: 'Only GET /metrics is served on this port' });
      return;
    }
    if (!bearerMatches(req.headers.authorization, options.token)) {
      json(res, 403, METRICS_DENIED);
      return;
    }
    options.source.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': options.source.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        options.onError(err);
        json(res, 503, { error: 'unavailable', error_description: 'The metrics could not be collected; try again' });
      },
    );
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
