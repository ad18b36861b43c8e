// lanes: sqlite postgres
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../helpers/histories.ts';
import { type Operation, injectStreaming, operations, undocumented } from '../helpers/openapi.ts';

/**
 * Property-based fuzzing of every route of the OpenAPI document: random path parameters, query
 * parameters and bodies (well-typed, ill-typed and not JSON at all), with and without credentials.
 * Every answer must be below 500 and one the interface documents. FUZZ_RUNS sets the runs per route
 * (default 30) and FUZZ_SEED replays a run; the seed is printed.
 */
const t = useTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

/** Marks a path value sent as is. */
const RAW = 'raw:';

let p: HistoryProject;
let customerId = '';

/** Strings a client might send by mistake or on purpose. */
const nasty = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e309',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '9'.repeat(40),
  "' or 1=1 --",
  '%',
  '../../etc/passwd',
  '\u0000',
  '\ud800',
  '中文客户',
  '2026-02-30 25:61:61',
  `${RAW}%E0%A4%A`,
  `${RAW}%ZZ`,
  'x'.repeat(5000),
);
const text = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.integer().map(String));
const anyJson = fc.oneof(
  { depthSize: 'small' },
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(text, fc.integer()), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.integer()), { maxKeys: 4 }),
);

interface Probe {
  url: string;
  query: Record<string, string>;
  body: unknown;
  contentType: string;
  auth: 'token' | 'none' | 'garbage';
}

/** A path parameter: mostly a real value of the project (to get past the first checks), else anything. */
function paramArb(name: string): fc.Arbitrary<string> {
  const real: Record<string, () => string> = {
    appId: () => p.appId,
    svcUserId: () => String(p.master.id),
    customerId: () => customerId,
  };
  const known = real[name];
  return known ? fc.oneof({ weight: 3, arbitrary: fc.constant(null).map(() => known()) }, { weight: 1, arbitrary: text }) : text;
}

/** Ingestion batches: records of the real kinds with fields of the real names, holding anything. */
const FIELDS = [
  'customerId',
  'action',
  'when',
  'name',
  'phone',
  'email',
  'linkId',
  'viewTime',
  'durations',
  'svcUserId',
  'content',
  'type',
];
const records = fc.array(
  fc.record({
    event_type: fc.oneof(fc.constantFrom('create', 'update', 'delete'), text),
    domainType: fc.oneof(fc.constantFrom('Customer', 'BehaviourLog', 'Link', 'LinkViewLog', 'Clue', 'Call', 'Post'), text),
    domainId: fc.oneof(text, fc.constant('fuzzed-id')),
    body: fc.oneof(fc.dictionary(fc.constantFrom(...FIELDS), anyJson, { maxKeys: 6 }), anyJson),
  }),
  { maxLength: 5 },
);

function probeArb(op: Operation): fc.Arbitrary<Probe> {
  const params = fc.tuple(...op.params.map(paramArb));
  const query = fc
    .subarray(op.query)
    .chain((names) =>
      fc.tuple(...names.map((n) => text.map((v) => [n, v] as const))).map((pairs) => Object.fromEntries(pairs) as Record<string, string>),
    );
  const documented = fc
    .subarray(op.body)
    .chain((names) =>
      fc
        .tuple(...names.map((n) => anyJson.map((v) => [n, v] as const)))
        .map((pairs) => Object.fromEntries(pairs) as Record<string, unknown>),
    );
  const ingestion = op.method === 'POST' && op.path.endsWith('/events');
  const body = fc.oneof(
    { weight: ingestion ? 8 : 0, arbitrary: records.map((b) => ({ body: b as unknown, contentType: 'application/json' })) },
    { weight: 4, arbitrary: documented.map((b) => ({ body: b as unknown, contentType: 'application/json' })) },
    { weight: 2, arbitrary: documented.map((b) => ({ body: b as unknown, contentType: 'application/x-www-form-urlencoded' })) },
    { weight: 1, arbitrary: anyJson.map((b) => ({ body: b, contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => ({ body: `{${s}` as unknown, contentType: 'application/json' })) },
    { weight: 1, arbitrary: text.map((s) => ({ body: s as unknown, contentType: 'text/plain' })) },
  );
  return fc
    .record({
      params,
      query,
      body,
      auth: fc.constantFrom<Probe['auth']>('token', 'token', 'token', 'none', 'garbage'),
    })
    .map(({ params: values, query: q, body: b, auth }) => {
      let i = 0;
      const url = op.path.replace(/\{(\w+)\}/g, () => inPath(values[i++] as string));
      return { url, query: q, body: b.body, contentType: b.contentType, auth };
    });
}

/** A path segment: encoded (well-formed first, as a client's encoder would), or an escape that does not decode, sent raw. */
function inPath(value: string): string {
  return value.startsWith(RAW) ? value.slice(RAW.length) : encodeURIComponent(value.replace(/[\ud800-\udfff]/gu, '\ufffd'));
}
function encode(body: unknown, contentType: string): string {
  if (typeof body === 'string' && contentType !== 'application/json') return body;
  if (contentType === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body as Record<string, unknown>))
      form.append(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
    return form.toString();
  }
  return typeof body === 'string' ? body : JSON.stringify(body);
}

beforeAll(async () => {
  p = await historyProject(t.server);
  const created = await t.server.api.post(
    `/api/v1.7/app/${p.appId}/member/${p.master.id}/customers`,
    { name: 'Fuzzed' },
    { token: p.master.token },
  );
  customerId = created.json().data.id as string;
  console.log(`fuzz: seed ${SEED}, ${RUNS} runs per route (replay: FUZZ_SEED=${SEED})`);
});

describe('every route under random input', () => {
  it('answers below 500, in a documented shape', { timeout: 600_000 }, async () => {
    const ops = await operations(t.server);
    expect(ops.length).toBeGreaterThan(30);
    let requests = 0;
    for (const [n, op] of ops.entries()) {
      await fc.assert(
        fc.asyncProperty(probeArb(op), async (probe) => {
          const headers: Record<string, string> = { 'content-type': probe.contentType };
          if (probe.auth === 'token') headers.authorization = `Bearer ${p.master.token}`;
          if (probe.auth === 'garbage') headers.authorization = 'Bearer \u00ff-not-a-token';
          if (op.path.endsWith('/events') && op.method === 'POST') headers['x-app-secret'] = p.secret;
          const withBody = op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH';
          const request = {
            method: op.method as 'GET',
            url: probe.url,
            query: probe.query,
            headers,
            ...(withBody ? { payload: encode(probe.body, probe.contentType) } : {}),
          };
          const res = op.streaming ? await injectStreaming(t.server.app, request) : await t.server.app.inject(request);
          requests += 1;
          const where = `${op.method} ${probe.url.slice(0, 160)} ?${new URLSearchParams(probe.query).toString().slice(0, 160)} HTTP ${res.statusCode} ${res.body.slice(0, 200)}`;
          expect(res.statusCode, `${where} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
          expect(undocumented(res), where).toBeUndefined();
        }),
        { numRuns: RUNS, seed: SEED + n, endOnFailure: false },
      );
    }
    console.log(`fuzz: ${requests} requests over ${ops.length} routes`);
  });
});
