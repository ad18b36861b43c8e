import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';
import { Relay, relayJob } from './events/relay.ts';
import { BackgroundJobs } from './lib/jobs.ts';
import { clusterMetrics } from './metrics/cluster.ts';
import { startMetricsServer } from './metrics/serve.ts';
import { openContext, type ServerContext } from './runtime.ts';
import { createServices } from './services.ts';

export interface RunningServer {
  app: FastifyInstance;
  ctx: ServerContext;
  close(): Promise<void>;
}

/** Starts the HTTP server: migrate, build, listen. */
export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, undefined, { truncateIps: config.ipTruncate });
  const ctx = await openContext(config, logger);
  const services = createServices(ctx);
  const app = await buildApp(ctx, services);
  let metricsServer: { close(): Promise<void> } | null = null;
  try {
    await app.listen({ port: config.port, host: config.host });
    // METRICS_PORT: served by this process when it is the only one (under WORKERS > 1, by the primary).
    if (ctx.metrics && config.metricsToken !== undefined && config.metricsPort !== undefined && cluster.isPrimary) {
      metricsServer = await startMetricsServer({
        port: config.metricsPort,
        host: config.metricsHost,
        token: config.metricsToken,
        source: ctx.metrics,
        onError: (err) => logger.error({ err }, 'metrics could not be collected'),
      });
    }
  } catch (err) {
    // Nothing may keep a server that cannot listen alive (the read worker, the PostgreSQL pool).
    await app.close();
    await ctx.database.close();
    throw err;
  }
  // Half-received uploads (files, imports) a crashed process left are removed; the files it left
  // processing and the imports it left waiting or running go on from where they stopped once the jobs start.
  void services.files.uploads.sweepIncoming();
  void services.dataops.imports.sweepIncoming();
  // The background jobs (src/services.ts defines them): the event relay (unless RAPPORT_EMBEDDED_RELAY=false),
  // the live poll while streams are open, campaign mail from the queue in the database (MAIL_WORKER=false
  // leaves it to other processes), merged customers' history moved to its survivors, uploaded files'
  // pages rendered, imports run, silent views and visits closed, expired tokens pruned.
  services.jobs.start();
  logger.info({ database: ctx.database.description, timeZone: config.timeZone }, 'rapport is serving');
  if (config.publicBaseUrlIsLocal && (process.env.RAPPORT_WORKER_INDEX ?? '0') === '0') {
    logger.warn(
      { publicBaseUrl: config.publicBaseUrl, host: config.host },
      'share links, the site snippet and mail clicks point at this machine alone (localhost): set PUBLIC_BASE_URL to the address customers reach',
    );
  }
  // A server without accounts: the setup code of its first one, in the log (once, not per worker).
  if ((process.env.RAPPORT_WORKER_INDEX ?? '0') === '0') {
    await services.accounts.announceSetup().catch((err: unknown) => logger.error({ err }, 'the setup code could not be made'));
  }
  let closing: Promise<void> | null = null;
  return {
    app,
    ctx,
    close() {
      // Stop accepting, let in-flight requests finish (with the group commits they wait for), stop
      // the jobs (the relay after its pass), then close the database once every write queue is empty.
      closing ??= (async () => {
        await app.close();
        await services.jobs.stop();
        await metricsServer?.close();
        await ctx.database.close();
      })();
      return closing;
    },
  };
}

/**
 * `rapport relay`: the event relay on its own, for servers run with RAPPORT_EMBEDDED_RELAY=false.
 * With METRICS_TOKEN and METRICS_PORT it serves its metrics (webhook deliveries, the outbox
 * backlog, its database pool) on that port, as a server does. Runs until SIGTERM/SIGINT, which
 * stop it after the pass under way.
 */
export async function relayForever(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, undefined, { truncateIps: config.ipTruncate });
  const ctx = await openContext(config, logger);
  let metricsServer: { close(): Promise<void> } | null = null;
  try {
    if (ctx.metrics && config.metricsToken !== undefined && config.metricsPort !== undefined) {
      metricsServer = await startMetricsServer({
        port: config.metricsPort,
        host: config.metricsHost,
        token: config.metricsToken,
        source: ctx.metrics,
        onError: (err) => logger.error({ err }, 'metrics could not be collected'),
      });
    } else if (config.metricsToken !== undefined) {
      logger.warn('METRICS_TOKEN is set but METRICS_PORT is not: the relay has no other port, so it serves no metrics');
    }
  } catch (err) {
    await ctx.database.close();
    throw err;
  }
  // The relay alone, as the one background job of this process.
  const jobs = new BackgroundJobs(ctx.clock, {
    ticked: (job, outcome, seconds) => ctx.observer.jobTicked(job, outcome, seconds),
    failed: (job, err, retryInMs) => logger.warn({ err, job, retryInMs }, `${job}: failed; will retry`),
  });
  jobs.define(relayJob(new Relay(ctx)));
  jobs.start();
  logger.info({ database: ctx.database.description, metricsPort: metricsServer ? config.metricsPort : undefined }, 'relay running');
  const stop = (signal: string) => {
    logger.info({ signal }, 'relay stopping');
    void jobs
      .stop()
      .then(() => metricsServer?.close())
      .then(() => ctx.database.close())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** A worker that dies sooner than this after it started, or before it listened, is crashing, not serving. */
const QUICK_DEATH_MS = 10_000;
/** Quick deaths in a row after which the primary gives up (a supervisor restarts or alerts). */
const MAX_QUICK_DEATHS = 5;

/**
 * WORKERS > 1: the primary migrates the database once, then forks that many HTTP workers sharing
 * the port (node:cluster); only the first runs the event relay. A worker that dies is replaced: at
 * once after a life of its own, after a growing pause (1 s, 2 s, 4 s, …) when it died right after
 * starting (or before it listened), and after MAX_QUICK_DEATHS such deaths in a row the primary stops every worker and exits
 * 1 instead of forking a crashing worker forever (the database gone, a bad setting).
 * SIGTERM/SIGINT stop every worker gracefully.
 */
async function runPrimary(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, undefined, { truncateIps: config.ipTruncate });
  const ctx = await openContext(config, logger);
  await ctx.database.close();
  let stopping = false;
  const envFor = (index: number) => ({
    RAPPORT_WORKER_INDEX: String(index),
    RAPPORT_EMBEDDED_RELAY: index === 0 && config.embeddedRelay ? 'true' : 'false',
  });
  const quickDeaths = new Map<number, number>();
  const fork = (index: number) => {
    const started = Date.now();
    const worker = cluster.fork(envFor(index));
    // A worker that dies before it ever listened never started, however long that took on a busy machine.
    let listened = false;
    worker.once('listening', () => (listened = true));
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      const quick = !listened || Date.now() - started < QUICK_DEATH_MS ? (quickDeaths.get(index) ?? 0) + 1 : 0;
      quickDeaths.set(index, quick);
      if (quick >= MAX_QUICK_DEATHS) {
        logger.fatal({ worker: index, code, signal, deaths: quick }, 'worker keeps dying right after it starts; stopping');
        stop('worker crash loop', 1);
        return;
      }
      const pause = quick === 0 ? 0 : 1000 * 2 ** (quick - 1);
      logger.error({ worker: index, code, signal, restartInMs: pause }, 'worker died; starting another');
      setTimeout(() => {
        if (!stopping) fork(index);
      }, pause);
    });
  };
  // The metrics of every worker, added up here: on METRICS_PORT, and for workers asked on the API port.
  const metrics = config.metricsToken !== undefined ? await clusterMetrics() : null;
  if (metrics && config.metricsToken !== undefined && config.metricsPort !== undefined) {
    await startMetricsServer({
      port: config.metricsPort,
      host: config.metricsHost,
      token: config.metricsToken,
      source: metrics,
      onError: (err) => logger.error({ err }, 'metrics could not be collected from the workers'),
    });
  }
  for (let i = 0; i < config.workers; i++) fork(i);
  logger.info({ workers: config.workers }, 'rapport primary started');
  function stop(signal: string, exitCode = 0): void {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down workers');
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    let left = workers.length;
    if (left === 0) process.exit(exitCode);
    for (const w of workers) {
      w.once('exit', () => {
        left -= 1;
        if (left === 0) process.exit(exitCode);
      });
      w.process.kill('SIGTERM');
    }
    setTimeout(() => process.exit(1), 30_000).unref();
  }
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Runs until SIGTERM/SIGINT, then shuts down gracefully (a second signal forces exit). */
export async function serveForever(config: Config): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  const server = await startServer(config);
  const log = server.ctx.logger;
  let signalled = false;
  const onSignal = (signal: string) => {
    if (signalled) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error('shutdown took longer than 25 s: exiting');
      process.exit(1);
    }, 25_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}
