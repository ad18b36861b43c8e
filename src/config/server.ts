/** Where the server listens and is reached (PORT, HOST, PUBLIC_BASE_URL), its database, time zone, log level and metrics port. */
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { ConfigError, type Env, intSetting } from './settings.ts';
import type { Config } from './types.ts';

function timeZoneSetting(env: Env): string {
  const tz = env.TIME_ZONE || 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new ConfigError(`TIME_ZONE must be an IANA time zone such as UTC or Asia/Shanghai, got "${tz}"`);
  }
  return tz;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Where the server listens and is reached, its database, time zone and log level, its metrics port. */
export function serverSettings(env: Env) {
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite database)');
  }
  const port = intSetting(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    const u = new URL(publicBaseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an http(s) URL, got "${env.PUBLIC_BASE_URL}"`);
  }
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,256}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 256 printable ASCII characters without spaces');
  }
  const metricsPort = env.METRICS_PORT ? intSetting(env, 'METRICS_PORT', 0, 1, 65535) : undefined;
  if (metricsPort !== undefined && metricsToken === undefined) {
    throw new ConfigError('METRICS_PORT needs METRICS_TOKEN: the metrics port answers only with that token');
  }
  if (metricsPort !== undefined && metricsPort === port) throw new ConfigError('METRICS_PORT must differ from PORT');
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  return {
    port,
    host,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl,
    publicBaseUrl,
    publicBaseUrlIsLocal: publicBaseUrlIsLocal({ publicBaseUrl, host }),
    timeZone: timeZoneSetting(env),
    logLevel,
    metricsToken,
    metricsPort,
    metricsHost: env.METRICS_HOST || host,
  } satisfies Partial<Config>;
}

/** A name or address only this machine reaches: localhost (and *.localhost), 127.0.0.0/8, ::1. */
function isLoopback(hostname: string): boolean {
  const name = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return ipaddr.isValid(name) && ipaddr.process(name).range() === 'loopback';
}

/**
 * Whether what the server hands out (share links' `url`, the site snippet, mail clicks and
 * unsubscribes) would point at this machine alone while other machines can reach the server: the
 * deploy trap of an unset PUBLIC_BASE_URL on a server listening on 0.0.0.0. Logged at start and
 * shown to a project's Master and Admins in the console (server-info's `publicBaseUrlIsLocal`).
 */
function publicBaseUrlIsLocal(config: { publicBaseUrl: string; host: string }): boolean {
  return isLoopback(new URL(config.publicBaseUrl).hostname) && !isLoopback(config.host);
}
