import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';
import { AppError } from './errors.ts';
import { UnstorableTextError } from './text.ts';

/**
 * How a route reports malformed input: token endpoints speak OAuth, the viewer's public routes the
 * envelope with HTTP 400 (`Bad Request` there is a 400), everything else the envelope.
 */
export type ErrorStyle = 'envelope' | 'oauth' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorStyle?: ErrorStyle;
  }
}

/**
 * A request answered before its body was read (too large, wrong type, refused by authentication,
 * unknown route) still has that body on the wire: the connection is closed after the answer
 * (`Connection: close`), or the next request on it would be read from the middle of the body.
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (request.body !== undefined) return;
  const length = request.headers['content-length'];
  if ((length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined) reply.header('connection', 'close');
}

function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  // A string payload is sent as is: failures never go through a route's success schema.
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** A body refused on the wire: the envelope, or on OAuth routes `invalid_request` (as for 413 and 415). */
function sendBodyRefusal(reply: FastifyReply, status: number, err: AppError): FastifyReply {
  if (reply.request.routeOptions.config?.errorStyle === 'oauth') {
    const error: ErrorCode = 'invalid_request';
    return sendJson(reply, status, { error, error_description: err.message });
  }
  return sendJson(reply, status, { status: 0, code: err.code, msg: err.message });
}

export function sendAppError(reply: FastifyReply, err: AppError): FastifyReply {
  switch (err.kind) {
    case 'envelope':
      return sendJson(reply, 200, { status: 0, code: err.code, msg: err.message, ...err.extra });
    case 'oauth':
      return sendJson(reply, 400, { error: err.code, error_description: err.message });
    case 'access_denied':
    case 'forbidden':
      return sendJson(reply, 403, { error: err.code, error_description: err.message });
    case 'too_many_requests':
      reply.header('Retry-After', String(err.retryAfter ?? 60));
      return sendJson(reply, 429, { error: err.code, error_description: err.message });
    case 'rate_limited':
    case 'quota_exceeded':
      reply.header('Retry-After', String(err.retryAfter ?? 60));
      return sendJson(reply, 429, { status: 0, code: err.code, msg: err.message });
    case 'body_too_slow':
      reply.header('connection', 'close');
      return sendBodyRefusal(reply, 408, err);
    case 'length_required':
      return sendBodyRefusal(reply, 411, err);
    case 'payload_too_large':
      return sendBodyRefusal(reply, 413, err);
    case 'overloaded':
      reply.header('Retry-After', String(err.retryAfter ?? 1));
      return sendJson(reply, 503, { status: 0, code: err.code, msg: err.message });
    case 'public':
      return sendJson(reply, 400, { status: 0, code: err.code, msg: err.message });
    case 'public_forbidden':
      return sendJson(reply, 403, { status: 0, code: err.code, msg: err.message });
  }
}

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** "Missing required parameter 'app_id'" / "Invalid parameter 'count': must be integer". */
export function describeValidation(issues: ValidationIssue[]): string {
  const first = issues[0];
  if (!first) return 'Invalid request';
  if (first.keyword === 'required') return `Missing required parameter '${String(first.params.missingProperty)}'`;
  const name = first.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'body';
  return `Invalid parameter '${name}': ${first.message ?? 'invalid value'}`;
}

function styleOf(request: FastifyRequest): ErrorStyle {
  return request.routeOptions.config?.errorStyle ?? 'envelope';
}

/** Malformed input: the envelope's code, or on OAuth routes invalid_request (HTTP 400 where the envelope is 200). */
function inputError(request: FastifyRequest, reply: FastifyReply, httpStatus: number, code: ErrorCode, msg: string) {
  const style = styleOf(request);
  if (style === 'oauth') {
    const error: ErrorCode = 'invalid_request';
    return sendJson(reply, httpStatus === 200 ? 400 : httpStatus, { error, error_description: msg });
  }
  return sendJson(reply, style === 'public' && httpStatus === 200 ? 400 : httpStatus, { status: 0, code, msg });
}

/**
 * What the router refuses before any route is chosen: a URL it cannot decode, or a path parameter
 * longer than the router takes. Malformed input like any other: the envelope's `Bad Request`, or
 * `invalid_request` under /svcuser (Fastify's `frameworkErrors`).
 */
export function frameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  closeIfBodyUnread(request, reply);
  const msg =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'Malformed request: a path parameter is too long'
      : 'Malformed request: the URL cannot be decoded';
  if (request.url.startsWith('/svcuser/')) sendJson(reply, 400, { error: 'invalid_request' satisfies ErrorCode, error_description: msg });
  else sendJson(reply, 200, { status: 0, code: 'Bad Request' satisfies ErrorCode, msg });
}

/**
 * The single mapping from errors to HTTP. Malformed input of any kind (bad JSON, wrong types,
 * absurd numbers, bad encodings) becomes a documented 4xx/envelope answer; anything unexpected
 * is logged and answered with a 500 body that reveals nothing internal.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    closeIfBodyUnread(request, reply);
    if (err instanceof AppError) return sendAppError(reply, err);
    const fe = err as FastifyError;
    if (err instanceof UnstorableTextError) return inputError(request, reply, 200, 'Bad Request', err.message);
    if (fe.validation) {
      return inputError(request, reply, 200, 'Bad Request', describeValidation(fe.validation as ValidationIssue[]));
    }
    const status = fe.statusCode ?? 500;
    if (status === 413 || fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return inputError(request, reply, 413, 'payload_too_large', ERROR_CODES.payload_too_large.en);
    }
    if (status === 415 || fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return inputError(request, reply, 415, 'unsupported_media_type', ERROR_CODES.unsupported_media_type.en);
    }
    if (status >= 400 && status < 500) {
      // Malformed JSON, bad content length, broken multipart and the like.
      return inputError(request, reply, 200, 'Bad Request', `Malformed request: ${fe.message}`);
    }
    request.log.error({ err }, 'unhandled error');
    const code: ErrorCode = 'internal_error';
    return sendJson(reply, 500, { status: 0, code, msg: ERROR_CODES[code].en });
  });
}
