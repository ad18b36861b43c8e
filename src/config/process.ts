/** The process: workers, timeouts, load shedding, visitors' addresses and places, live streams, the database's queues, test switches. */
import path from 'node:path';
import { ConfigError, type Env, boolSetting, intSetting } from './settings.ts';
import type { Config } from './types.ts';

function trustProxySetting(raw: string | undefined): boolean | number | string[] {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') return true;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const parts = value.split(',').map((p) => p.trim());
  if (parts.every((p) => /^[0-9A-Fa-f:.]{2,45}(\/\d{1,3})?$/.test(p))) return parts;
  throw new ConfigError(
    `TRUST_PROXY must be false, a number of proxy hops (e.g. 1), a comma-separated list of proxy addresses or CIDR ranges, or true; got "${value}"`,
  );
}

function tlsAskFromSetting(raw: string | undefined): 'private' | 'any' {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'private') return 'private';
  if (value === 'any') return 'any';
  throw new ConfigError(`TLS_ASK_FROM must be private (loopback and private addresses) or any; got "${raw ?? ''}"`);
}

const GEO_LANGUAGES = ['en', 'zh-CN', 'de', 'es', 'fr', 'ja', 'pt-BR', 'ru'] as const;

function geoLanguageSetting(env: Env): Config['geoLanguage'] {
  const value = env.GEOIP_LANGUAGE || 'en';
  const found = GEO_LANGUAGES.find((l) => l === value);
  if (found === undefined) throw new ConfigError(`GEOIP_LANGUAGE must be one of ${GEO_LANGUAGES.join(', ')}, got "${value}"`);
  return found;
}

/** The process: workers, connection timeouts, load shedding, visitors' addresses, live streams, the database's queues. */
export function processSettings(env: Env) {
  return {
    workers: intSetting(env, 'WORKERS', 1, 1, 64),
    headersTimeout: intSetting(env, 'HEADERS_TIMEOUT', 10, 1, 300),
    maxEventLoopDelay: intSetting(env, 'MAX_EVENT_LOOP_DELAY', 1000, 0, 60_000),
    idleTimeout: intSetting(env, 'IDLE_TIMEOUT', 30, 1, 3600),
    ipTruncate: boolSetting(env, 'IP_TRUNCATE', true),
    geoDatabase: env.GEOIP_DB ? path.resolve(env.GEOIP_DB) : undefined,
    geoLanguage: geoLanguageSetting(env),
    livePollMs: intSetting(env, 'LIVE_POLL_MS', 250, 20, 10_000),
    liveMaxStreams: intSetting(env, 'LIVE_MAX_STREAMS', 256, 1, 100_000),
    liveMaxStreamsPerUser: intSetting(env, 'LIVE_MAX_STREAMS_PER_USER', 5, 1, 1000),
    sqliteReadThread: boolSetting(env, 'SQLITE_READ_THREAD', true),
    writeQueueRecords: intSetting(env, 'WRITE_QUEUE_RECORDS', 16_384, 1, 1_000_000),
    trustProxy: trustProxySetting(env.TRUST_PROXY),
    tlsAskFrom: tlsAskFromSetting(env.TLS_ASK_FROM),
    insecureFastHash: boolSetting(env, 'RAPPORT_INSECURE_FAST_HASH', false),
    embeddedRelay: boolSetting(env, 'RAPPORT_EMBEDDED_RELAY', true),
    appIdCheck: boolSetting(env, 'RAPPORT_APP_ID_CHECK', false),
  } satisfies Partial<Config>;
}
