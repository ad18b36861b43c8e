import pino, { type Logger } from 'pino';

const SENSITIVE_PARAMS = /([?&](?:access_token|refresh_token|password|client_secret|app_secret|secret|code)=)[^&#]*/gi;

/** A URL safe to log: the values of token, password and secret parameters are replaced. */
export function redactUrl(url: string): string {
  return url.replace(SENSITIVE_PARAMS, '$1[REDACTED]');
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
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
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
        req: (req: LoggableRequest) => ({ method: req.method, url: redactUrl(req.url ?? ''), remoteAddress: req.ip }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
