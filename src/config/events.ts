/** Events out (webhooks, NATS, the feed's retention), alerts, and what is kept of site visitors and link passcodes. */
import { ConfigError, type Env, boolSetting, intSetting } from './settings.ts';
import type { Config } from './types.ts';

function natsName(env: Env, name: string, fallback: string, re: RegExp): string {
  const value = env[name] || fallback;
  if (!re.test(value)) throw new ConfigError(`${name} must be letters, digits, _ or -, got "${value}"`);
  return value;
}

/** Events out (webhooks, NATS, the feed's retention), and what is kept of site visitors and link passcodes. */
export function eventAndVisitorSettings(env: Env) {
  return {
    webhookAllowPrivate: boolSetting(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    natsUrl: env.NATS_URL || undefined,
    natsStream: natsName(env, 'NATS_STREAM', 'RAPPORT', /^[A-Za-z0-9_-]{1,64}$/),
    natsSubjectPrefix: natsName(env, 'NATS_SUBJECT_PREFIX', 'rapport', /^[A-Za-z0-9_-]{1,64}$/),
    eventRetentionDays: intSetting(env, 'EVENT_RETENTION_DAYS', 7, 1, 3650),
    alertReadingQuietSeconds: intSetting(env, 'ALERT_READING_QUIET', 300, 10, 86_400),
    alertRetentionDays: intSetting(env, 'ALERT_RETENTION_DAYS', 90, 1, 3650),
    siteAnonymousDays: intSetting(env, 'SITE_ANONYMOUS_DAYS', 395, 1, 3650),
    siteAnonymousDailyCap: intSetting(env, 'SITE_ANONYMOUS_DAILY_CAP', 200_000, 0, 1_000_000_000),
    linkPasscodeFailures: intSetting(env, 'LINK_PASSCODE_FAILURES', 10, 1, 1_000_000),
    linkPasscodeLockoutSeconds: intSetting(env, 'LINK_PASSCODE_LOCKOUT', 900, 1, 30 * 24 * 3600),
  } satisfies Partial<Config>;
}
