import { migrateToLatest, createDatabase } from './db/index.ts';
import type { Logger } from 'pino';
import { type Config, ConfigError } from './config.ts';
import { type AppContext, NO_OBSERVER } from './context.ts';
import { Clock } from './lib/time.ts';
import { type VisitorDescriber, createVisitorDescriber } from './lib/visitor.ts';
import { Metrics } from './metrics/metrics.ts';
import { createCodeSender } from './modules/accounts/code-sender.ts';

/** The context of a process that serves: the services' context, and its metrics when METRICS_TOKEN is set. */
export interface ServerContext extends AppContext {
  readonly metrics: Metrics | null;
}

/**
 * Opens the configured database, brings its schema up to date and assembles the context. With
 * METRICS_TOKEN set the process keeps metrics: the database, the services and the relay report to them.
 */
export async function openContext(config: Config, logger: Logger, options: { migrate?: boolean } = {}): Promise<ServerContext> {
  // Read first: a GEOIP_DB that cannot be read stops the start before anything is opened.
  let visitors: VisitorDescriber;
  try {
    visitors = createVisitorDescriber({ truncateIps: config.ipTruncate, geoDatabase: config.geoDatabase, geoLanguage: config.geoLanguage });
  } catch (e) {
    throw new ConfigError(`GEOIP_DB: ${(e as Error).message}`);
  }
  const metrics = config.metricsToken !== undefined ? await Metrics.load({ processMetrics: true }) : null;
  const database = createDatabase(config, metrics ?? undefined);
  metrics?.collectFrom(database);
  try {
    if (options.migrate !== false) {
      const { applied } = await migrateToLatest(database.db, database.features.name);
      if (applied.length > 0) logger.info({ applied }, 'database migrated');
    }
  } catch (err) {
    await database.close();
    throw err;
  }
  return {
    config,
    database,
    clock: new Clock(config.timeZone),
    logger,
    codeSender: createCodeSender(config, logger),
    observer: metrics ?? NO_OBSERVER,
    visitors,
    metrics,
  };
}
