import type { FastifyInstance, InjectOptions } from 'fastify';
import { errorCodeSpec } from '../../src/http/error-codes.ts';
import { PUBLIC_PAGES_TAG } from '../../src/http/public-pages.ts';
import type { TestServer } from './harness.ts';

/** One operation of the served OpenAPI document: its method, path template and the fields it documents. */
export interface Operation {
  method: string;
  path: string;
  /** Path parameter names, in order. */
  params: string[];
  query: string[];
  body: string[];
  /** Its success is a stream (`text/event-stream`) that stays open: probed over a connection of its own, not in one request. */
  streaming: boolean;
}

/**
 * Every API operation of the app's own `/openapi.json`, so that a route added later is covered without
 * changing a test. The public pages, scripts and beacons (HTML, images, redirects, their own protocols)
 * are left out: their own tests probe them (test/links*.test.ts, test/modules/site/site-tracking.test.ts, test/campaigns*.test.ts).
 */
export async function operations(server: TestServer): Promise<Operation[]> {
  const doc = (await server.api.get('/openapi.json')).json() as {
    paths: Record<
      string,
      Record<
        string,
        {
          tags?: string[];
          parameters?: { in: string; name: string }[];
          requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
          responses?: Record<string, { content?: Record<string, unknown> }>;
        }
      >
    >;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op.tags?.includes(PUBLIC_PAGES_TAG)) continue;
      const content = Object.values(op.requestBody?.content ?? {})[0];
      ops.push({
        method: method.toUpperCase(),
        path,
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string),
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: Object.keys(content?.schema.properties ?? {}),
        streaming: Object.keys(op.responses?.['200']?.content ?? {}).includes('text/event-stream'),
      });
    }
  }
  return ops;
}

/**
 * Whether an answer is one the interface documents: the HTML 404 page of an unknown URI, or JSON and either a success or a failure whose
 * code (`code` of `{status:0, code, msg}`, or `error` of the OAuth shape) is in the error table.
 * Returns what is wrong, or undefined.
 */
export function undocumented(res: { statusCode: number; body: string; headers: Record<string, unknown> }): string | undefined {
  // An unknown URI (an empty or odd path parameter can make one) gets the documented HTML 404 page.
  if (res.statusCode === 404 && String(res.headers['content-type']).startsWith('text/html')) return undefined;
  // An open event stream (its refusals are JSON like any other).
  if (res.statusCode === 200 && isStream(res.headers)) return undefined;
  // A file the route answers with (an export, a template, problems.csv).
  if (res.statusCode === 200 && isDownload(res.headers)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    return `not JSON (HTTP ${res.statusCode}): ${res.body.slice(0, 120)}`;
  }
  const o = json as { status?: number; code?: string; error?: string; msg?: unknown; error_description?: unknown };
  const success = Array.isArray(json) || (res.statusCode < 300 && o.status !== 0 && o.error === undefined);
  if (success) return undefined;
  const code = o.code ?? o.error;
  if (code === undefined || errorCodeSpec(code) === undefined) return `undocumented answer ${res.body.slice(0, 200)}`;
  if (typeof (o.msg ?? o.error_description) !== 'string') return `failure without its text: ${res.body.slice(0, 200)}`;
  return undefined;
}

/** An answer read the way the probes read one: its status, headers and body text. */
export interface ProbeAnswer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  json(): unknown;
}

const isStream = (headers: Record<string, unknown>) => String(headers['content-type'] ?? '').startsWith('text/event-stream');
const isDownload = (headers: Record<string, unknown>) =>
  /^(text\/csv|application\/vnd\.openxml)/.test(String(headers['content-type'] ?? ''));

/**
 * A request to a streaming route: a refusal is read whole; an open stream is read up to its first
 * message (the opening comment) and then closed, its body being what was read.
 */
export async function injectStreaming(app: FastifyInstance, options: InjectOptions): Promise<ProbeAnswer> {
  const res = await app.inject({ ...options, payloadAsStream: true });
  const stream = res.stream();
  let body = '';
  for await (const chunk of stream) {
    body += String(chunk);
    if (isStream(res.headers) && body.includes('\n\n')) break;
  }
  stream.destroy();
  return { statusCode: res.statusCode, headers: res.headers, body, json: () => JSON.parse(body) as unknown };
}

/** Whether an answer (parsed) is a success: an open event stream, or a success envelope. */
export function succeeded(res: { statusCode: number; body: string; headers?: Record<string, unknown> }): boolean {
  if (res.statusCode === 200 && res.headers !== undefined && (isStream(res.headers) || isDownload(res.headers))) return true;
  try {
    const o = JSON.parse(res.body) as { status?: number; error?: string };
    return Array.isArray(o) || (res.statusCode < 300 && o.status !== 0 && o.error === undefined);
  } catch {
    return false;
  }
}
