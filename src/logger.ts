import pino, { type Logger } from 'pino';
import { truncateIp } from './lib/visitor.ts';

const SENSITIVE_PARAMS = /([?&](?:access_token|refresh_token|password|client_secret|app_secret|secret|code)=)[^&#]*/gi;

/** A URL safe to log: the values of token, password and secret parameters are replaced. */
/** Paths that carry a secret: an invitation link's token (the console's page and the API's lookup and accept). */
const SENSITIVE_PATHS = /(\/(?:console\/invite|api\/v1\.7\/invitation)\/)[^/?#]+/gi;

export function redactUrl(url: string): string {
  return url.replace(SENSITIVE_PATHS, '$1[REDACTED]').replace(SENSITIVE_PARAMS, '$1[REDACTED]');
}

interface LoggableRequest {
  method?: string;
  url?: string;
  ip?: string;
  id?: string;
}

/**
 * The process logger. Tokens, passwords and secrets never reach a log line: request URLs are
 * redacted, headers are not logged, and known secret fields are censored wherever they appear.
 * Client addresses are truncated (IPv4 /24, IPv6 /48) unless `truncateIps` is false.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, options: { truncateIps?: boolean } = {}): Logger {
  // Client addresses are logged as they are stored: truncated unless IP_TRUNCATE is off.
  const address =
    options.truncateIps === false ? (ip: string | undefined) => ip : (ip: string | undefined) => (ip ? truncateIp(ip) || ip : ip);
  return pino(
    {
      level,
      redact: {
        paths: [
          'authorization',
          'headers.authorization',
          'req.headers.authorization',
          'password',
          '*.password',
          'access_token',
          '*.access_token',
          'refresh_token',
          '*.refresh_token',
          'client_secret',
          '*.client_secret',
          'secret',
          '*.secret',
        ],
        censor: '[REDACTED]',
      },
      serializers: {
        req: (req: LoggableRequest) => ({ method: req.method, url: redactUrl(req.url ?? ''), remoteAddress: address(req.ip) }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}

type LogFn = Logger['info'];
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * A request's logger, made into a pino child (with the request id) only when something is logged.
 * Fastify makes one child per request, ~6 µs of a ~90 µs request (measured), and with request
 * lines off (LOG_LEVEL=warn) most requests never log. A line below the level is dropped without
 * making the child; everything else goes to the child exactly as Fastify's own factory would.
 */
export class LazyChildLogger {
  private made: Logger | undefined;
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: pino.Bindings,
    private readonly options: pino.ChildLoggerOptions,
  ) {}

  private get real(): Logger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (
      this.made?.isLevelEnabled(level) ??
      (this.options.level === undefined ? this.parent.isLevelEnabled(level) : this.real.isLevelEnabled(level))
    );
  }

  silent(): void {}

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.real.child(bindings, options);
  }

  static {
    for (const level of LEVELS) {
      Object.defineProperty(LazyChildLogger.prototype, level, {
        value(this: LazyChildLogger, ...args: Parameters<LogFn>) {
          if (this.made === undefined && !this.isLevelEnabled(level)) return;
          (this.real[level] as (...a: unknown[]) => void)(...args);
        },
      });
    }
  }
}
