import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/index.ts';
import type { Clock } from './lib/time.ts';
import type { CodeSender } from './modules/accounts/code-sender.ts';

/** What every service is built from. Nothing here knows about HTTP, so the CLI shares it. */
export interface AppContext {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly codeSender: CodeSender;
}
