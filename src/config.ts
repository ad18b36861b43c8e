/**
 * The configuration: settings read from the environment, checked at start (docs/interface.md §17).
 * The settings of each area are read in src/config/; their types are src/config/types.ts.
 */
import path from 'node:path';
import { eventAndVisitorSettings } from './config/events.ts';
import { filesSettings, importsSettings } from './config/files.ts';
import { requestLimitSettings } from './config/limits.ts';
import { accountAndMailSettings } from './config/mail.ts';
import { processSettings } from './config/process.ts';
import { serverSettings } from './config/server.ts';
import { type Env, boolSetting, userIdsSetting } from './config/settings.ts';
import type { Config } from './config/types.ts';

export { ConfigError } from './config/settings.ts';
export type { Config, FilesConfig, ImportsConfig, RateLimitConfig } from './config/types.ts';

/** The settings, group by group (each group checks its own and throws ConfigError on the first bad one). */
export function loadConfig(env: Env = process.env): Config {
  return Object.freeze({
    ...serverSettings(env),
    ...accountAndMailSettings(env),
    ...processSettings(env),
    ...eventAndVisitorSettings(env),
    ...requestLimitSettings(env),
    files: filesSettings(env),
    imports: importsSettings(env),
    allowSignup: boolSetting(env, 'ALLOW_SIGNUP', false),
    adminUserIds: userIdsSetting(env, 'ADMIN_USER_IDS'),
    // src/config.ts and the bundle dist/rapport.js both sit one folder below the checkout.
    consoleDir: path.resolve(env.CONSOLE_DIR || new URL('../console/dist', import.meta.url).pathname),
  });
}
