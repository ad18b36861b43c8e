import type { AppContext } from '../../src/context.ts';
import { RELAY_JOB, Relay, type RelayOptions, relayJob } from '../../src/events/relay.ts';
import { BackgroundJobs } from '../../src/lib/jobs.ts';

/** A relay running as its background job, as a server runs it, apart from the test server's own jobs. */
export interface RunningRelay {
  readonly relay: Relay;
  /** Stops after the pass under way and closes the relay's connections. */
  stop(): Promise<void>;
}

/** Starts a relay of its own over the test server's database, with its options (a short pollMs, quick retries). */
export function startRelay(ctx: AppContext, options: Partial<RelayOptions> = {}): RunningRelay {
  const relay = new Relay(ctx, options);
  const jobs = new BackgroundJobs(ctx.clock, {
    ticked: () => {},
    failed: (job, err, retryInMs) => ctx.logger.warn({ err, job, retryInMs }, `${job}: failed; will retry`),
  });
  jobs.define(relayJob(relay));
  jobs.start([RELAY_JOB]);
  return { relay, stop: () => jobs.stop() };
}
