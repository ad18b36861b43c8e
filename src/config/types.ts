/** Typed, validated, frozen configuration read from the environment (docs/interface.md §17). */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** A postgres:// URL selects PostgreSQL; otherwise SQLite in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly publicBaseUrl: string;
  /** PUBLIC_BASE_URL names this machine alone (localhost) while HOST lets others connect: a deploy trap, warned of. */
  readonly publicBaseUrlIsLocal: boolean;
  readonly timeZone: string;
  readonly logLevel: string;
  /** Refresh-token lifetime in seconds (default 30 days). */
  readonly refreshTokenTtl: number;
  /** When true, register needs a verification code. */
  readonly requireVerificationCode: boolean;
  /** SETUP_CODE: the setup code the first account is made with; unset, one is made at start and logged (docs/accounts.md). */
  readonly setupCode: string | undefined;
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
  /** Seconds after which the sequences runner's lease on an enrolment, held by a stopped process, is taken over (SEQUENCE_LEASE_SECONDS). */
  readonly sequenceLeaseSeconds: number;
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
  /**
   * Who may ask `GET /tls/ask` whether a project claims a domain (TLS_ASK_FROM): `private` (the
   * default: loopback and private addresses, the TLS proxy beside the server) or `any`.
   */
  readonly tlsAskFrom: 'private' | 'any';
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
  /** Seconds without a new page record after which a directed deck's reading is over (ALERT_READING_QUIET; docs/alerts.md). */
  readonly alertReadingQuietSeconds: number;
  /** Days notifications and signals are kept (ALERT_RETENTION_DAYS). */
  readonly alertRetentionDays: number;
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
  /** Invitation links (created or resent) per minute of one project (RATE_LIMIT_INVITATIONS). */
  readonly perInvitation: number;
  /** `GET /tls/ask` questions a minute from one address (RATE_LIMIT_TLS_ASK): the TLS proxy asks once per name it has not in memory. */
  readonly perTlsAsk: number;
}
