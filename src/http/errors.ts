import { type CodeAnswered, ERROR_CODES, type ErrorCode, type FieldErrorCode, type FieldProblem } from './error-codes.ts';

/**
 * Every failure the API can answer with, created here with a code from the table in
 * error-codes.ts, and mapped to HTTP in one place (error-handler.ts). Services throw these; they
 * never build response bodies themselves.
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
  | 'too_many_requests'
  /** HTTP 429 `{status:0, code:"rate_limited", msg}` with Retry-After: a rate limit under /api. */
  | 'rate_limited'
  /** HTTP 408 `{status:0, code:"body_too_slow", msg}`: the body came in below the minimum rate; nothing was done. */
  | 'body_too_slow'
  /** HTTP 411 `{status:0, code:"length_required", msg}`: a multipart body without Content-Length. */
  | 'length_required'
  /** HTTP 413 `{status:0, code:"payload_too_large", msg}`: a body, or one of its fields, over its route's limit. */
  | 'payload_too_large'
  /** HTTP 503 `{status:0, code:"overloaded", msg}` with Retry-After: the server is full, nothing was written. */
  | 'overloaded'
  /** HTTP 429 `{status:0, code:"quota_exceeded", msg}` with Retry-After: a project's daily quota is spent, nothing was written. */
  | 'quota_exceeded'
  /** HTTP 400 `{status:0, code, msg}`: bad input to a public route of the viewer (a beacon, a form); nothing was written. */
  | 'public'
  /** HTTP 403 `{status:0, code, msg}`: a public route refused who is calling (the site snippet from an origin not allowed). */
  | 'public_forbidden';

/** Codes of business failures: HTTP 200 `{status:0, code, msg}`. */
export type BusinessCode = CodeAnswered<200, 'envelope'>;
/** Codes the viewer's public routes answer with HTTP 400 `{status:0, code, msg}`. */
export type PublicCode = CodeAnswered<400, 'envelope'>;
/** Codes public routes answer with HTTP 403 `{status:0, code, msg}`. */
export type PublicForbiddenCode = CodeAnswered<403, 'envelope'>;
/** Codes the token and register endpoints answer with HTTP 400 `{error, error_description}`. */
export type OAuthCode = CodeAnswered<400, 'error'>;

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: ErrorCode | FieldErrorCode,
    message: string,
    /** Extra top-level fields of an envelope failure (e.g. `errors` of an ingestion batch). */
    readonly extra?: Record<string, unknown>,
    /** Seconds, for too_many_requests, rate_limited and overloaded. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/**
 * A business failure with a stable code, e.g. `app_not_found`. `msg` is the detail when given
 * (which parameter, which customer, which limit), else the table's English text for the code.
 */
export const failure = (code: BusinessCode, detail?: string, extra?: Record<string, unknown>): AppError =>
  new AppError('envelope', code, detail ?? ERROR_CODES[code].en, extra);

export const badRequest = (detail: string): AppError => failure('Bad Request', detail);

/** A public route's refusal (the viewer's beacons and form): HTTP 400 `{status:0, code, msg}`, nothing written. */
export const publicFailure = (code: PublicCode, detail?: string): AppError => new AppError('public', code, detail ?? ERROR_CODES[code].en);

export const publicForbidden = (code: PublicForbiddenCode, detail?: string): AppError =>
  new AppError('public_forbidden', code, detail ?? ERROR_CODES[code].en);

/** A failure of a parameter known only at run time (a customer attribute): `<field>_<problem>`. */
export const fieldFailure = (field: string, problem: FieldProblem, detail: string): AppError =>
  new AppError('envelope', `${field}_${problem}`, detail);

export const oauthError = (code: OAuthCode, detail: string): AppError => new AppError('oauth', code, detail);

export const accessDenied = (detail = 'Bearer token not found'): AppError => new AppError('access_denied', 'access_denied', detail);

export const forbidden = (detail: string): AppError => new AppError('forbidden', 'forbidden', detail);

/** The history endpoints' permission failure (docs/interface.md §6): HTTP 200 `{status:0, code:"NEED_AUTH"}`. */
export const needAuth = (detail: string): AppError => failure('NEED_AUTH', detail);

export const tooManyRequests = (retryAfter: number, detail: string): AppError =>
  new AppError('too_many_requests', 'too_many_requests', detail, undefined, Math.max(1, Math.ceil(retryAfter)));

/** The server cannot take the write now (its queue is full); nothing was written. */
export const overloaded = (retryAfter: number, detail: string): AppError =>
  new AppError('overloaded', 'overloaded', detail, undefined, Math.max(1, Math.ceil(retryAfter)));

/** A project's daily quota of what strangers may make it store is spent until `retryAfter` seconds from now; nothing was written. */
export const quotaExceeded = (retryAfter: number, detail: string): AppError =>
  new AppError('quota_exceeded', 'quota_exceeded', detail, undefined, Math.max(1, Math.ceil(retryAfter)));

/** A rate limit under /api (the /svcuser calls answer `tooManyRequests`). */
export const rateLimited = (retryAfter: number, detail: string): AppError =>
  new AppError('rate_limited', 'rate_limited', detail, undefined, Math.max(1, Math.ceil(retryAfter)));

/** The request body arrived below the minimum rate; the connection is closed. */
export const bodyTooSlow = (detail: string): AppError => new AppError('body_too_slow', 'body_too_slow', detail);

/** A body, or a multipart field, larger than its route takes. */
export const payloadTooLarge = (detail: string): AppError => new AppError('payload_too_large', 'payload_too_large', detail);

/** A multipart body sent without its Content-Length (chunked), which its route's size limit needs. */
export const lengthRequired = (): AppError => new AppError('length_required', 'length_required', ERROR_CODES.length_required.en);
