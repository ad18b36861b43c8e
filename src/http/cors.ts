import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/**
 * Cross-origin calls from browser pages of the origins in CORS_ORIGINS (docs/operations.md "CORS"):
 * their preflights are answered (204) before any token check, and their answers carry
 * Access-Control-Allow-Origin. The API authenticates by bearer token, never by cookie, so no
 * credentials mode. Without CORS_ORIGINS nothing changes: no CORS header, no preflight answer.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  const allowed = new Set(origins);
  await app.register(cors, {
    origin: any ? '*' : (origin, cb) => cb(null, origin !== undefined && allowed.has(origin.toLowerCase())),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Accept-Language', 'Idempotency-Key', 'X-Requested-With'],
    exposedHeaders: [
      'Retry-After',
      'Content-Disposition',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'X-Total-Count',
      'X-Total-Count-Capped',
    ],
    credentials: false,
    maxAge: 600,
    strictPreflight: false,
  });
}
