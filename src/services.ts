import type { AppContext } from './context.ts';
import { Relay, relayJob } from './events/relay.ts';
import { BackgroundJobs } from './lib/jobs.ts';
import { createCustomerServices } from './wiring/customers.ts';
import { createIdentityServices } from './wiring/identity.ts';
import { createOutreachServices } from './wiring/outreach.ts';

/** Every loop of background work; the server starts them and stops them on SIGTERM (src/lib/jobs.ts). */
function createJobs(ctx: AppContext): BackgroundJobs {
  const jobs = new BackgroundJobs(ctx.clock, {
    ticked: (job, outcome, seconds) => ctx.observer.jobTicked(job, outcome, seconds),
    failed: (job, err, retryInMs) => ctx.logger.warn({ err, job, retryInMs }, `${job}: failed; will retry`),
  });
  // The event relay (outbox to webhooks and NATS) in this process, unless RAPPORT_EMBEDDED_RELAY=false
  // leaves it to `rapport relay` (or, under WORKERS, to the first worker).
  if (ctx.config.embeddedRelay) jobs.define(relayJob(new Relay(ctx)));
  return jobs;
}

/**
 * The composition root: every service, built once from the context and given, when it is built,
 * the services (or narrow functions) it needs; shared by the HTTP app, the CLI and workers. A
 * service is built after those it needs, so nothing is wired afterwards: identity first, then
 * customers and their records, then what reaches customers, each group wired in its file of
 * src/wiring/ (identity.ts, customers.ts, outreach.ts).
 */
export function createServices(ctx: AppContext) {
  const jobs = createJobs(ctx);
  const identity = createIdentityServices(ctx, jobs);
  const customers = createCustomerServices(ctx, identity, jobs);
  return { jobs, ...identity, ...customers, ...createOutreachServices(ctx, identity, customers, jobs) };
}

export type Services = ReturnType<typeof createServices>;
