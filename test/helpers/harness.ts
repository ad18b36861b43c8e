import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { InjectOptions, LightMyRequestResponse as Response } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { openContext } from '../../src/runtime.ts';
import { type Services, createServices } from '../../src/services.ts';
import { APP_ID_CHECK_ENV, type FreshDatabase, freshDatabase } from './database.ts';

export interface TestServer {
  app: FastifyInstance;
  ctx: AppContext;
  services: Services;
  /** Every log line the server wrote, parsed. */
  logs: Record<string, unknown>[];
  /** Raw log text, for redaction checks. */
  rawLogs(): string;
  api: Api;
  close(): Promise<void>;
}

export interface CallOptions {
  token?: string;
  /** Send the body as x-www-form-urlencoded (default JSON for objects). */
  form?: boolean;
  headers?: Record<string, string>;
  query?: Record<string, string | number>;
  /** Client address; by default each call gets its own, so per-address throttling only applies where a test asks. */
  ip?: string;
}

export interface Api {
  get(url: string, opts?: CallOptions): Promise<Response>;
  post(url: string, body?: unknown, opts?: CallOptions): Promise<Response>;
  put(url: string, body?: unknown, opts?: CallOptions): Promise<Response>;
  delete(url: string, opts?: CallOptions): Promise<Response>;
}

function encodeForm(body: Record<string, unknown>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    p.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  return p.toString();
}

function makeApi(app: FastifyInstance): Api {
  let n = 1;
  const call = (method: InjectOptions['method'], url: string, body: unknown, opts: CallOptions = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      if (opts.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        payload = encodeForm(body as Record<string, unknown>);
      } else if (typeof body === 'string' || Buffer.isBuffer(body)) {
        payload = body as string;
        headers['content-type'] ??= 'application/json';
      } else {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(body);
      }
    }
    const query = opts.query ? Object.fromEntries(Object.entries(opts.query).map(([k, v]) => [k, String(v)])) : undefined;
    const remoteAddress = opts.ip ?? `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n++ & 255}`;
    return app.inject({ method, url, headers, remoteAddress, ...(payload !== undefined ? { payload } : {}), ...(query ? { query } : {}) });
  };
  return {
    get: (url, opts) => call('GET', url, undefined, opts),
    post: (url, body, opts) => call('POST', url, body, opts),
    put: (url, body, opts) => call('PUT', url, body, opts),
    delete: (url, opts) => call('DELETE', url, undefined, opts),
  };
}

/** Builds the real app on a fresh database of the suite's dialect. */
export async function startTestServer(extraEnv: Record<string, string> = {}): Promise<TestServer> {
  const db: FreshDatabase = await freshDatabase();
  // Uploaded files go under DATA_DIR on PostgreSQL too: a directory of the test's own, removed with it.
  const dataDir =
    db.env.DATA_DIR === undefined && extraEnv.DATA_DIR === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-files-')) : null;
  // SQLITE_READ_THREAD=false runs the whole suite with SQLite's reads on the main thread (.ci/run does).
  const readThread = process.env.SQLITE_READ_THREAD ? { SQLITE_READ_THREAD: process.env.SQLITE_READ_THREAD } : {};
  // Rate limits off: tests make many calls with one token; the rate-limit tests turn them on.
  const config = loadConfig({
    RAPPORT_INSECURE_FAST_HASH: '1',
    LOG_LEVEL: 'info',
    RATE_LIMITS: 'off',
    // No load shedding: on a shared machine another test file's work can stall this process past a
    // second, and a request must not then be answered 503. test/http/pressure.test.ts sets its own.
    MAX_EVENT_LOOP_DELAY: '0',
    ...APP_ID_CHECK_ENV,
    ...readThread,
    ...db.env,
    ...(dataDir !== null ? { DATA_DIR: dataDir } : {}),
    ...extraEnv,
  });
  let raw = '';
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const text = chunk.toString();
      raw += text;
      for (const line of text.split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  const logger = createLogger(config.logLevel, sink, { truncateIps: config.ipTruncate });
  const ctx = await openContext(config, logger);
  const services = createServices(ctx);
  const app = await buildApp(ctx, services);
  await app.ready();
  return {
    app,
    ctx,
    services,
    logs,
    rawLogs: () => raw,
    api: makeApi(app),
    async close() {
      await app.close();
      await services.jobs.stop();
      services.mailTransport.close();
      await ctx.database.close();
      await db.drop();
      if (dataDir !== null) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One server per test file: `const t = useTestServer();` then `t.server.api...` inside tests. */
export function useTestServer(extraEnv: Record<string, string> = {}): { server: TestServer } {
  const holder = {} as { server: TestServer };
  beforeAll(async () => {
    holder.server = await startTestServer(extraEnv);
  });
  afterAll(async () => {
    await holder.server?.close();
  });
  return holder;
}
