import { migrateToLatest, createDatabase } from './db/index.ts';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { Clock } from './lib/time.ts';
import { createCodeSender } from './modules/accounts/code-sender.ts';

/** Opens the configured database, brings its schema up to date and assembles the context. */
export async function openContext(config: Config, logger: Logger, options: { migrate?: boolean } = {}): Promise<AppContext> {
  const database = createDatabase(config);
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
  };
}
