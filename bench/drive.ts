/**
 * The load generator of `npm run bench`, run as a fresh child process for every measurement: the bench
 * process that generated the dataset carries its heap (and its collections) into whatever runs in it
 * afterwards, which made a generating run's load generator slower than a `--reuse` run's. The parent
 * sends autocannon's options as one message and gets its summary back.
 */
import autocannon from 'autocannon';

process.once('message', (options: autocannon.Options) => {
  autocannon(options, (error, result) => {
    if (error) {
      process.send?.({ error: String(error) }, () => process.exit(1));
      return;
    }
    process.send?.(
      {
        reqPerSec: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors + result.timeouts,
        non2xx: result.non2xx,
        bytes: result.requests.average > 0 ? result.throughput.average / result.requests.average : 0,
      },
      () => process.exit(0),
    );
  });
});
process.send?.('ready');
