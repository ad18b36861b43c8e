/**
 * Every failure the API can answer with, created in one place (here) and mapped to HTTP in one
 * place (error-handler.ts). Services throw these; they never build response bodies themselves.
 */
export type ErrorKind =
  /** HTTP 200 `{status:0, code, msg}`: the interface's business failure envelope. */
  | 'envelope'
  /** HTTP 400 `{error, error_description}`: token and register endpoints (RFC 6749 §5.2). */
  | 'oauth'
  /** HTTP 403 `{error:"access_denied", error_description}`: no, bad or expired token. */
  | 'access_denied'
  /** HTTP 403 `{error:"forbidden", error_description}`: authenticated but not allowed. */
  | 'forbidden'
  /** HTTP 429 `{error:"too_many_requests", error_description}` with Retry-After. */
  | 'too_many_requests';

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    /** Extra top-level fields of an envelope failure (e.g. `errors` of an ingestion batch). */
    readonly extra?: Record<string, unknown>,
    /** Seconds, for too_many_requests. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (msg: string): AppError => new AppError('envelope', 'Bad Request', msg);

/** A business failure with a stable code, e.g. `app_not_found`, `name_required`. */
export const failure = (code: string, msg: string, extra?: Record<string, unknown>): AppError => new AppError('envelope', code, msg, extra);

export const oauthError = (
  error:
    | 'invalid_request'
    | 'invalid_client'
    | 'invalid_grant'
    | 'unsupported_grant_type'
    | 'code_not_correct'
    | 'phone_num_existed'
    | 'email_existed',
  description: string,
): AppError => new AppError('oauth', error, description);

export const accessDenied = (description = 'Bearer token not found'): AppError =>
  new AppError('access_denied', 'access_denied', description);

export const forbidden = (description: string): AppError => new AppError('forbidden', 'forbidden', description);

/** The history endpoints' permission failure (decisions §3): HTTP 200 `{status:0, code:"NEED_AUTH"}`. */
export const needAuth = (msg = 'no permission to call this API'): AppError => failure('NEED_AUTH', msg);

export const tooManyRequests = (retryAfter: number, description: string): AppError =>
  new AppError('too_many_requests', 'too_many_requests', description, undefined, Math.max(1, Math.ceil(retryAfter)));
