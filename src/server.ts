import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { createLogger } from './logger.ts';
import { Relay } from './events/relay.ts';
import { startMaintenance } from './maintenance.ts';
import { openContext } from './runtime.ts';
import { createServices } from './services.ts';

export interface RunningServer {
  app: FastifyInstance;
  ctx: AppContext;
  close(): Promise<void>;
}

/** Starts the HTTP server: migrate, build, listen. */
export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const ctx = await openContext(config, logger);
  const services = createServices(ctx);
  const app = await buildApp(ctx, services);
  await app.listen({ port: config.port, host: config.host });
  const stopMaintenance = startMaintenance(ctx, services.accounts);
  const relay = config.embeddedRelay ? new Relay(ctx) : null;
  relay?.start();
  logger.info({ database: ctx.database.description, timeZone: config.timeZone }, 'rapport is serving');
  let closing: Promise<void> | null = null;
  return {
    app,
    ctx,
    close() {
      // Stop accepting, let in-flight requests finish, then close the database.
      closing ??= (async () => {
        stopMaintenance();
        await app.close();
        await relay?.stop();
        await ctx.database.close();
      })();
      return closing;
    },
  };
}

/**
 * WORKERS > 1: the primary migrates the database once, then forks that many HTTP workers sharing
 * the port (node:cluster); only the first runs the event relay. A worker that dies is replaced;
 * SIGTERM/SIGINT stop every worker gracefully.
 */
async function runPrimary(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const ctx = await openContext(config, logger);
  await ctx.database.close();
  let stopping = false;
  const envFor = (index: number) => ({
    RAPPORT_WORKER_INDEX: String(index),
    RAPPORT_EMBEDDED_RELAY: index === 0 && config.embeddedRelay ? 'true' : 'false',
  });
  const fork = (index: number) => {
    const worker = cluster.fork(envFor(index));
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      logger.error({ worker: index, code, signal }, 'worker died; starting another');
      fork(index);
    });
  };
  for (let i = 0; i < config.workers; i++) fork(i);
  logger.info({ workers: config.workers }, 'rapport primary started');
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down workers');
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    let left = workers.length;
    if (left === 0) process.exit(0);
    for (const w of workers) {
      w.once('exit', () => {
        left -= 1;
        if (left === 0) process.exit(0);
      });
      w.process.kill('SIGTERM');
    }
    setTimeout(() => process.exit(1), 30_000).unref();
  };
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
