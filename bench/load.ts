/**
 * The load generator of the write-load scenarios of `npm run bench`, run as a child process as
 * drive.ts is: autocannon cycles through a list of requests on each connection, and every response's
 * latency is recorded by the kind of its request (write or read), so the mixed load reports the
 * p99 of its reads apart from its writes'. Every write is one behaviour record with an id of its
 * own. The parent sends a LoadSpec and gets a LoadResult back.
 */
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';

export interface LoadSpec {
  base: string;
  appId: string;
  secret: string;
  token: string;
  /** Writes go to customers c2 … c(customers+1), one after the other. */
  customers: number;
  /** Request kinds cycled on each connection: 'write', or a read path. */
  cycle: ('write' | string)[];
  connections: number;
  duration: number;
  /** Requests per second over all connections (autocannon's overallRate); as fast as it goes when absent. */
  rate?: number;
  /** Distinguishes runs on the same dataset: record ids are `<runTag>-<connection>-<n>`. */
  runTag: string;
}

export interface KindResult {
  requests: number;
  p50: number;
  p99: number;
  failures: number;
}

export interface LoadResult {
  seconds: number;
  all: KindResult;
  write: KindResult;
  read: KindResult;
}

function histogram() {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
}

process.once('message', (spec: LoadSpec) => {
  const hist = { all: histogram(), write: histogram(), read: histogram() };
  const failures = { all: 0, write: 0, read: 0 };
  let connection = 0;
  const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  const requests = spec.cycle.map((kind): autocannon.Request => {
    const write = kind === 'write';
    return {
      method: write ? ('POST' as const) : ('GET' as const),
      path: write ? `/api/v1.7/app/${spec.appId}/events` : kind,
      headers: write ? { 'content-type': 'application/json', 'x-app-secret': spec.secret } : { authorization: `Bearer ${spec.token}` },
      setupRequest(req, ctx) {
        const context = ctx as Record<string, unknown>;
        if (context.id === undefined) {
          context.id = connection++;
          context.n = 0;
        }
        context.started = process.hrtime.bigint();
        if (!write) return req;
        const n = (context.n as number) + 1;
        context.n = n;
        const customer = `c${2 + ((n * 7919 + (context.id as number)) % spec.customers)}`;
        const id = `${spec.runTag}-${context.id as number}-${n}`;
        const body = [
          {
            event_type: 'create',
            domainType: 'BehaviourLog',
            domainId: id,
            body: {
              customerId: customer,
              action: 'access_site',
              when: fmt(Date.now()),
              content: JSON.stringify({ web_access_log_id: `w-${id}`, title: `Page ${n % 13}`, site: 'example.com' }),
            },
          },
        ];
        return { ...req, body: JSON.stringify(body) };
      },
      onResponse(status, body, ctx) {
        const context = ctx as Record<string, unknown>;
        const micros = Number((process.hrtime.bigint() - (context.started as bigint)) / 1000n);
        const k = write ? 'write' : 'read';
        hist[k].recordValue(micros);
        hist.all.recordValue(micros);
        // A write counts only when acknowledged (`{"status":1,…}`); a read when answered 200.
        if (status !== 200 || (write && !body.startsWith('{"status":1'))) {
          failures[k] += 1;
          failures.all += 1;
        }
      },
    };
  });
  const started = performance.now();
  autocannon(
    { url: spec.base, connections: spec.connections, duration: spec.duration, requests, ...(spec.rate ? { overallRate: spec.rate } : {}) },
    (error) => {
      if (error) {
        process.send?.({ error: String(error) }, () => process.exit(1));
        return;
      }
      const seconds = (performance.now() - started) / 1000;
      const of = (k: 'all' | 'write' | 'read'): KindResult => ({
        requests: hist[k].totalCount,
        p50: hist[k].getValueAtPercentile(50) / 1000,
        p99: hist[k].getValueAtPercentile(99) / 1000,
        failures: failures[k],
      });
      process.send?.({ seconds, all: of('all'), write: of('write'), read: of('read') } satisfies LoadResult, () => process.exit(0));
    },
  );
});
process.send?.('ready');
