import fs from 'node:fs';
import path from 'node:path';

/** Typed, validated, frozen configuration read from the environment (docs/interface.md §17). */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** A postgres:// URL selects PostgreSQL; otherwise SQLite in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly publicBaseUrl: string;
  readonly timeZone: string;
  readonly logLevel: string;
  /** Refresh-token lifetime in seconds (default 30 days). */
  readonly refreshTokenTtl: number;
  /** When true, register needs a verification code. */
  readonly requireVerificationCode: boolean;
  /** nodemailer connection URL; when set, e-mail verification codes go out by SMTP. */
  readonly smtpUrl: string | undefined;
  readonly smtpFrom: string;
  /** Campaign mails each process hands to SMTP per second at most (MAIL_RATE_PER_SECOND). */
  readonly mailRatePerSecond: number;
  /** Pooled SMTP connections of each process's campaign sender (MAIL_CONNECTIONS). */
  readonly mailConnections: number;
  /** Seconds after which a recipient another process left in `sending` is marked `unknown` (MAIL_SENDING_STALE_SECONDS). */
  readonly mailSendingStaleSeconds: number;
  /** Opens within this many seconds of the send are a machine's, not a person's (MAIL_MACHINE_OPEN_SECONDS). */
  readonly mailMachineOpenSeconds: number;
  /** Run the campaign sender in this process (MAIL_WORKER, default true). */
  readonly mailWorker: boolean;
  /** DKIM signing of campaign mail: MAIL_DKIM_DOMAIN, MAIL_DKIM_SELECTOR and MAIL_DKIM_KEY_FILE (a PEM private key), all or none. */
  readonly mailDkim: { readonly domainName: string; readonly keySelector: string; readonly privateKey: string } | undefined;
  /** Number of HTTP worker processes. */
  readonly workers: number;
  /** Event-loop delay (ms) past which requests get 503 overloaded instead of queuing (MAX_EVENT_LOOP_DELAY; 0: never). */
  readonly maxEventLoopDelay: number;
  /** Seconds a client has to send a request's headers (HEADERS_TIMEOUT). */
  readonly headersTimeout: number;
  /** Seconds a connection may stay silent, between requests or within one, before it is closed (IDLE_TIMEOUT). */
  readonly idleTimeout: number;
  /** Visitors' addresses stored and logged truncated, IPv4 /24 and IPv6 /48 (IP_TRUNCATE, default true). */
  readonly ipTruncate: boolean;
  /** A MaxMind City database for visitors' places (GEOIP_DB); unset: places are empty. */
  readonly geoDatabase: string | undefined;
  /** The language places are named in (GEOIP_LANGUAGE, default en). */
  readonly geoLanguage: 'en' | 'zh-CN' | 'de' | 'es' | 'fr' | 'ja' | 'pt-BR' | 'ru';
  /** Milliseconds between a server's looks at the feed for its open live streams (LIVE_POLL_MS). */
  readonly livePollMs: number;
  /** Open live streams a process takes in all (LIVE_MAX_STREAMS) and per user (LIVE_MAX_STREAMS_PER_USER). */
  readonly liveMaxStreams: number;
  readonly liveMaxStreamsPerUser: number;
  /** Records of small writes that may wait for their group commit before new ones get 503 (WRITE_QUEUE_RECORDS). */
  readonly writeQueueRecords: number;
  /** SQLite: run each process's reads on a worker thread (SQLITE_READ_THREAD, default true). */
  readonly sqliteReadThread: boolean;
  /**
   * Which proxies' X-Forwarded-For is believed (TRUST_PROXY): false; a number of proxy hops in
   * front; a list of proxy addresses or CIDR ranges; or true (every hop: only safe when the proxy
   * replaces the header rather than appending to it).
   */
  readonly trustProxy: boolean | number | string[];
  /** Test suites only: cheap password hashes (RAPPORT_INSECURE_FAST_HASH=1). Never in production. */
  readonly insecureFastHash: boolean;
  /** Run the event relay inside the server process (RAPPORT_EMBEDDED_RELAY, default true). */
  readonly embeddedRelay: boolean;
  /**
   * Test suites only (RAPPORT_APP_ID_CHECK=1): on PostgreSQL, every statement over a project's
   * tables must name the project (src/db/app-id-check.ts); one that does not fails.
   */
  readonly appIdCheck: boolean;
  /** Allow webhook URLs that resolve to loopback, private or link-local addresses. */
  readonly webhookAllowPrivate: boolean;
  /** NATS server for the JetStream sink; unset disables it. */
  readonly natsUrl: string | undefined;
  readonly natsStream: string;
  readonly natsSubjectPrefix: string;
  /** Days a delivered event stays readable in the pull feed. */
  readonly eventRetentionDays: number;
  /** Days an anonymous site visitor's records and visits are kept before they expire (SITE_ANONYMOUS_DAYS). */
  readonly siteAnonymousDays: number;
  /** Anonymous site records a project may store a day, every visitor together (SITE_ANONYMOUS_DAILY_CAP; 0: no cap). */
  readonly siteAnonymousDailyCap: number;
  /** Wrong passcodes of one link, from any address, that lock its passcode (LINK_PASSCODE_FAILURES). */
  readonly linkPasscodeFailures: number;
  /** Seconds the wrong passcodes are counted over, and the passcode is then refused for (LINK_PASSCODE_LOCKOUT). */
  readonly linkPasscodeLockoutSeconds: number;
  /** Requests per minute per budget (RATE_LIMITS, RATE_LIMIT_TOKEN, RATE_LIMIT_PROJECT, RATE_LIMIT_CLIENT, RATE_LIMIT_IP); docs/operations.md. */
  readonly rateLimits: RateLimitConfig;
  /** Redis shared by the processes for their rate limits (REDIS_URL); unset: each process counts alone. */
  readonly redisUrl: string | undefined;
  /** Prefix of the rate-limit keys in Redis (RATE_LIMIT_REDIS_PREFIX). */
  readonly redisPrefix: string;
  /** Bytes per second below which a large request body is cut off (BODY_MIN_RATE; 0: never). */
  readonly bodyMinRate: number;
  /** Seconds over which BODY_MIN_RATE is measured (BODY_RATE_WINDOW). */
  readonly bodyRateWindow: number;
  /** Bearer token that reads `/metrics` (METRICS_TOKEN); unset: metrics are served nowhere. */
  readonly metricsToken: string | undefined;
  /** Browser origins allowed to call the API from their pages (CORS_ORIGINS, comma-separated; `*` any); empty: none. */
  readonly corsOrigins: readonly string[];
  /** A port of its own for `/metrics` (METRICS_PORT); then the API port does not serve it. */
  readonly metricsPort: number | undefined;
  /** Listen address of METRICS_PORT (METRICS_HOST, default HOST). */
  readonly metricsHost: string;
  /** Anyone may sign up from the web console (ALLOW_SIGNUP); without it only the first user, on an empty server. */
  readonly allowSignup: boolean;
  /** The instance's administrators (ADMIN_USER_IDS, platform user ids): they manage the OAuth clients from the API and the console. */
  readonly adminUserIds: readonly number[];
  /** The web console's built files (CONSOLE_DIR, default console/dist of the checkout). */
  readonly consoleDir: string;
  /** Uploaded files and their rendering (docs/files.md). */
  readonly files: FilesConfig;
  /** Customer imports (docs/data-operations.md). */
  readonly imports: ImportsConfig;
}

export interface ImportsConfig {
  /** Largest CSV an import may bring, in bytes (IMPORT_MAX_BYTES, default 1 GiB). */
  readonly maxBytes: number;
  /** Largest XLSX workbook an import may bring, in bytes (IMPORT_XLSX_MAX_BYTES, default 50 MiB). */
  readonly xlsxMaxBytes: number;
  /** Most data rows an import's file may have (IMPORT_MAX_ROWS, default 1,000,000). */
  readonly maxRows: number;
  /** Most bytes an XLSX workbook's entries may inflate to, together (IMPORT_XLSX_MAX_INFLATED, default 1 GiB). */
  readonly xlsxMaxUncompressedBytes: number;
  /** Most shared strings an XLSX workbook may have (IMPORT_XLSX_MAX_STRINGS, default 1,000,000). */
  readonly xlsxMaxSharedStrings: number;
  /** Seconds a running import is held by its process between batches; after that another takes it up (IMPORT_LEASE_SECONDS, default 30). */
  readonly leaseSeconds: number;
}

export interface FilesConfig {
  /** Largest file an upload may bring, in bytes (FILE_MAX_BYTES, default 50 MiB). */
  readonly maxBytes: number;
  /** Most pages a PDF may have (FILE_MAX_PAGES, default 500). */
  readonly maxPages: number;
  /** Milliseconds one page (or opening a document) may take to render before the renderer is stopped (FILE_RENDER_PAGE_TIMEOUT_MS). */
  readonly pageTimeoutMs: number;
  /** Memory of the renderer's child process in MB, its data segment and resident memory (FILE_RENDER_MEMORY_MB, default 384). */
  readonly renderMemoryMb: number;
  /** A directory of extra fonts (TTF, OTF) the renderer draws text with when a PDF does not embed its own (FILE_FONT_DIR). */
  readonly fontDir: string | undefined;
}

export interface RateLimitConfig {
  /** false with RATE_LIMITS=off (benchmarks); log-in throttling stays. */
  readonly enabled: boolean;
  /** Requests per minute of one access token. */
  readonly perToken: number;
  /** Ingestion requests per minute of one project, by its secret. */
  readonly perProject: number;
  /** Requests per minute of one OAuth client on the token and register calls. */
  readonly perClient: number;
  /** Requests per minute of one client address without (valid) credentials. */
  readonly perIp: number;
  /** The public viewer's pages and page images per minute from one address (RATE_LIMIT_VIEWER). */
  readonly perViewer: number;
  /** Beacons per minute of one view (RATE_LIMIT_VIEW). */
  readonly perView: number;
  /** The viewer's beacons per minute from one address, every view together (RATE_LIMIT_BEACON_IP). */
  readonly perBeaconAddress: number;
  /** Forms, passcodes and e-mail gates per minute from one address (RATE_LIMIT_FORM). */
  readonly perForm: number;
  /** The site snippet's collect calls per minute of one visitor (RATE_LIMIT_SITE_VISITOR). */
  readonly perSiteVisitor: number;
  /** The site snippet's collect calls per minute of one site key, every visitor together (RATE_LIMIT_SITE_KEY). */
  readonly perSiteKey: number;
  /** The site snippet's collect calls per minute from one address, every key and visitor together (RATE_LIMIT_SITE_IP). */
  readonly perSiteAddress: number;
  /** Test mails of campaign drafts per minute of one user (RATE_LIMIT_TEST_MAIL). */
  readonly perTestMail: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function intSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A comma list of platform user ids; empty: nobody. */
function userIdsSetting(env: Env, name: string): number[] {
  const raw = env[name] ?? '';
  const ids = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const id of ids) {
    if (!/^\d{1,10}$/.test(id) || Number(id) < 1 || Number(id) > 2147483647)
      throw new ConfigError(`${name} must be a comma list of user ids, got "${id}"`);
  }
  return [...new Set(ids.map(Number))];
}

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

function boolSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

const GEO_LANGUAGES = ['en', 'zh-CN', 'de', 'es', 'fr', 'ja', 'pt-BR', 'ru'] as const;

function geoLanguageSetting(env: Env): Config['geoLanguage'] {
  const value = env.GEOIP_LANGUAGE || 'en';
  const found = GEO_LANGUAGES.find((l) => l === value);
  if (found === undefined) throw new ConfigError(`GEOIP_LANGUAGE must be one of ${GEO_LANGUAGES.join(', ')}, got "${value}"`);
  return found;
}

function timeZoneSetting(env: Env): string {
  const tz = env.TIME_ZONE || 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new ConfigError(`TIME_ZONE must be an IANA time zone such as UTC or Asia/Shanghai, got "${tz}"`);
  }
  return tz;
}

function natsName(env: Env, name: string, fallback: string, re: RegExp): string {
  const value = env[name] || fallback;
  if (!re.test(value)) throw new ConfigError(`${name} must be letters, digits, _ or -, got "${value}"`);
  return value;
}

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

function fontDirSetting(env: Env): string | undefined {
  const dir = env.FILE_FONT_DIR || undefined;
  if (dir === undefined) return undefined;
  const resolved = path.resolve(dir);
  if (!fs.existsSync(resolved) || !fs.statSync(resolved).isDirectory()) {
    throw new ConfigError(`FILE_FONT_DIR must be a directory of font files, got "${dir}"`);
  }
  return resolved;
}

function dkimSetting(env: Env): Config['mailDkim'] {
  const domainName = env.MAIL_DKIM_DOMAIN || undefined;
  const keySelector = env.MAIL_DKIM_SELECTOR || undefined;
  const keyFile = env.MAIL_DKIM_KEY_FILE || undefined;
  if (domainName === undefined && keySelector === undefined && keyFile === undefined) return undefined;
  if (domainName === undefined || keySelector === undefined || keyFile === undefined) {
    throw new ConfigError('MAIL_DKIM_DOMAIN, MAIL_DKIM_SELECTOR and MAIL_DKIM_KEY_FILE go together: set all three or none');
  }
  let privateKey: string;
  try {
    privateKey = fs.readFileSync(path.resolve(keyFile), 'utf8');
  } catch (e) {
    throw new ConfigError(`MAIL_DKIM_KEY_FILE cannot be read: ${(e as Error).message}`);
  }
  if (!privateKey.includes('PRIVATE KEY')) throw new ConfigError('MAIL_DKIM_KEY_FILE must be a PEM private key');
  return Object.freeze({ domainName, keySelector, privateKey });
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Where the server listens and is reached, its database, time zone and log level, its metrics port. */
function serverSettings(env: Env) {
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
    timeZone: timeZoneSetting(env),
    logLevel,
    metricsToken,
    metricsPort,
    metricsHost: env.METRICS_HOST || host,
  } satisfies Partial<Config>;
}

/** Accounts' tokens and codes, and mail: SMTP, the campaign sender's pace and DKIM. */
function accountAndMailSettings(env: Env) {
  return {
    refreshTokenTtl: intSetting(env, 'REFRESH_TOKEN_TTL', 30 * 24 * 3600, 60, 10 * 365 * 24 * 3600),
    requireVerificationCode: boolSetting(env, 'REQUIRE_VERIFICATION_CODE', false),
    smtpUrl: env.SMTP_URL || undefined,
    smtpFrom: env.SMTP_FROM || 'Rapport <no-reply@localhost>',
    mailRatePerSecond: intSetting(env, 'MAIL_RATE_PER_SECOND', 50, 1, 10_000),
    mailConnections: intSetting(env, 'MAIL_CONNECTIONS', 5, 1, 100),
    mailSendingStaleSeconds: intSetting(env, 'MAIL_SENDING_STALE_SECONDS', 600, 1, 86_400),
    mailMachineOpenSeconds: intSetting(env, 'MAIL_MACHINE_OPEN_SECONDS', 10, 0, 3600),
    mailWorker: boolSetting(env, 'MAIL_WORKER', true),
    mailDkim: dkimSetting(env),
  } satisfies Partial<Config>;
}

/** The process: workers, connection timeouts, load shedding, visitors' addresses, live streams, the database's queues. */
function processSettings(env: Env) {
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
    insecureFastHash: boolSetting(env, 'RAPPORT_INSECURE_FAST_HASH', false),
    embeddedRelay: boolSetting(env, 'RAPPORT_EMBEDDED_RELAY', true),
    appIdCheck: boolSetting(env, 'RAPPORT_APP_ID_CHECK', false),
  } satisfies Partial<Config>;
}

/** Events out (webhooks, NATS, the feed's retention), and what is kept of site visitors and link passcodes. */
function eventAndVisitorSettings(env: Env) {
  return {
    webhookAllowPrivate: boolSetting(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    natsUrl: env.NATS_URL || undefined,
    natsStream: natsName(env, 'NATS_STREAM', 'RAPPORT', /^[A-Za-z0-9_-]{1,64}$/),
    natsSubjectPrefix: natsName(env, 'NATS_SUBJECT_PREFIX', 'rapport', /^[A-Za-z0-9_-]{1,64}$/),
    eventRetentionDays: intSetting(env, 'EVENT_RETENTION_DAYS', 7, 1, 3650),
    siteAnonymousDays: intSetting(env, 'SITE_ANONYMOUS_DAYS', 395, 1, 3650),
    siteAnonymousDailyCap: intSetting(env, 'SITE_ANONYMOUS_DAILY_CAP', 200_000, 0, 1_000_000_000),
    linkPasscodeFailures: intSetting(env, 'LINK_PASSCODE_FAILURES', 10, 1, 1_000_000),
    linkPasscodeLockoutSeconds: intSetting(env, 'LINK_PASSCODE_LOCKOUT', 900, 1, 30 * 24 * 3600),
  } satisfies Partial<Config>;
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
  });
}

/** What holds a request back: rate limits (shared through Redis), a slow body's minimum rate, browsers' origins. */
function requestLimitSettings(env: Env) {
  return {
    rateLimits: rateLimitSettings(env),
    redisUrl: redisUrlSetting(env),
    redisPrefix: redisPrefixSetting(env),
    bodyMinRate: intSetting(env, 'BODY_MIN_RATE', 1024, 0, 1_000_000_000),
    bodyRateWindow: intSetting(env, 'BODY_RATE_WINDOW', 10, 1, 3600),
    corsOrigins: corsOriginsSetting(env),
  } satisfies Partial<Config>;
}

/** Uploaded files and their rendering (FILE_*). */
function filesSettings(env: Env): FilesConfig {
  return Object.freeze({
    maxBytes: intSetting(env, 'FILE_MAX_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxPages: intSetting(env, 'FILE_MAX_PAGES', 500, 1, 10_000),
    pageTimeoutMs: intSetting(env, 'FILE_RENDER_PAGE_TIMEOUT_MS', 10_000, 100, 600_000),
    renderMemoryMb: intSetting(env, 'FILE_RENDER_MEMORY_MB', 384, 192, 65_536),
    fontDir: fontDirSetting(env),
  });
}

/** Customer imports (IMPORT_*). */
function importsSettings(env: Env): ImportsConfig {
  return Object.freeze({
    maxBytes: intSetting(env, 'IMPORT_MAX_BYTES', 1024 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    xlsxMaxBytes: intSetting(env, 'IMPORT_XLSX_MAX_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxRows: intSetting(env, 'IMPORT_MAX_ROWS', 1_000_000, 1, 100_000_000),
    xlsxMaxUncompressedBytes: intSetting(env, 'IMPORT_XLSX_MAX_INFLATED', 1024 * 1024 * 1024, 1024 * 1024, 16 * 1024 * 1024 * 1024),
    // 4,000,000 at most: an import holds 8 bytes of offsets a string besides their 64 MiB of text.
    xlsxMaxSharedStrings: intSetting(env, 'IMPORT_XLSX_MAX_STRINGS', 1_000_000, 1, 4_000_000),
    leaseSeconds: intSetting(env, 'IMPORT_LEASE_SECONDS', 30, 1, 3600),
  });
}

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
