/** One autocannon measurement of a running server, with its failures and the server's peak memory meanwhile. */
import autocannon from 'autocannon';
import { rssOf } from '../instance.ts';
import { samplePeak } from './report.ts';

export interface CannonFigures {
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  failures: number;
  peakRssMB: number;
}

/**
 * Runs autocannon with `options` against the server of process `pid`; `ok` says whether an answer
 * (its status and body) counts as a success: the others, errors and timeouts are `failures`.
 */
export async function measure(
  pid: number,
  options: autocannon.Options,
  ok: (status: number, body: string) => boolean,
): Promise<CannonFigures> {
  let failures = 0;
  const sampler = samplePeak(() => rssOf(pid));
  try {
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const requests = (options.requests ?? [{}]).map((r) => ({
        ...r,
        onResponse(status: number, body: string) {
          if (!ok(status, body)) failures += 1;
        },
      }));
      autocannon({ ...options, requests }, (err, res) => (err ? reject(err) : resolve(res)));
    });
    return {
      reqPerSec: Math.round(result.requests.average),
      p50ms: result.latency.p50,
      p99ms: result.latency.p99,
      requests: result.requests.total,
      failures: failures + result.errors + result.timeouts,
      peakRssMB: Math.round(sampler.peak() / 1e6),
    };
  } finally {
    sampler.stop();
  }
}
