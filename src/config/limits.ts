/** What holds a request back: rate limits and their Redis, a slow body's minimum rate, browsers' origins (CORS). */
import { ConfigError, type Env, boolSetting, intSetting } from './settings.ts';
import type { Config, RateLimitConfig } from './types.ts';

function redisUrlSetting(env: Env): string | undefined {
  const url = env.REDIS_URL || undefined;
  if (url !== undefined && !/^rediss?:\/\//.test(url)) throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got "${url}"`);
  return url;
}

function redisPrefixSetting(env: Env): string {
  const value = env.RATE_LIMIT_REDIS_PREFIX || 'rapport-rl';
  if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(value)) {
    throw new ConfigError(`RATE_LIMIT_REDIS_PREFIX must be letters, digits, _ : . or -, got "${value}"`);
  }
  return value;
}

/** CORS_ORIGINS: origins such as https://app.example.com (scheme, host, optional port), or `*`. */
function corsOriginsSetting(env: Env): string[] {
  const raw = env.CORS_ORIGINS ?? '';
  const origins = raw
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  for (const o of origins) {
    if (o !== '*' && !/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(o)) {
      throw new ConfigError(`CORS_ORIGINS must be origins such as https://app.example.com (no path, no trailing /) or *, got "${o}"`);
    }
  }
  return origins.map((o) => o.toLowerCase());
}

/** Requests per minute per budget (RATE_LIMITS, RATE_LIMIT_*). */
function rateLimitSettings(env: Env): RateLimitConfig {
  return Object.freeze({
    enabled: boolSetting(env, 'RATE_LIMITS', true),
    perToken: intSetting(env, 'RATE_LIMIT_TOKEN', 600, 1, 1_000_000),
    perProject: intSetting(env, 'RATE_LIMIT_PROJECT', 6000, 1, 1_000_000),
    perClient: intSetting(env, 'RATE_LIMIT_CLIENT', 300, 1, 1_000_000),
    perIp: intSetting(env, 'RATE_LIMIT_IP', 120, 1, 1_000_000),
    perViewer: intSetting(env, 'RATE_LIMIT_VIEWER', 1200, 1, 1_000_000),
    perView: intSetting(env, 'RATE_LIMIT_VIEW', 120, 1, 1_000_000),
    perBeaconAddress: intSetting(env, 'RATE_LIMIT_BEACON_IP', 600, 1, 1_000_000),
    perForm: intSetting(env, 'RATE_LIMIT_FORM', 10, 1, 1_000_000),
    perSiteVisitor: intSetting(env, 'RATE_LIMIT_SITE_VISITOR', 60, 1, 1_000_000),
    perSiteKey: intSetting(env, 'RATE_LIMIT_SITE_KEY', 30_000, 1, 1_000_000),
    perSiteAddress: intSetting(env, 'RATE_LIMIT_SITE_IP', 600, 1, 1_000_000),
    perTestMail: intSetting(env, 'RATE_LIMIT_TEST_MAIL', 5, 1, 1_000_000),
    perInvitation: intSetting(env, 'RATE_LIMIT_INVITATIONS', 10, 1, 1_000_000),
    perTlsAsk: intSetting(env, 'RATE_LIMIT_TLS_ASK', 1200, 1, 1_000_000),
  });
}

/** What holds a request back: rate limits (shared through Redis), a slow body's minimum rate, browsers' origins. */
export function requestLimitSettings(env: Env) {
  return {
    rateLimits: rateLimitSettings(env),
    redisUrl: redisUrlSetting(env),
    redisPrefix: redisPrefixSetting(env),
    bodyMinRate: intSetting(env, 'BODY_MIN_RATE', 1024, 0, 1_000_000_000),
    bodyRateWindow: intSetting(env, 'BODY_RATE_WINDOW', 10, 1, 3600),
    corsOrigins: corsOriginsSetting(env),
  } satisfies Partial<Config>;
}
