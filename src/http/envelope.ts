import { type TSchema, Type } from '@sinclair/typebox';

/** `{status: 1, data}`: every successful business response. */
export function ok<T>(data: T): { status: 1; data: T } {
  return { status: 1, data };
}

/** Response schema of a successful envelope around `data`. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ status: Type.Literal(1), data });
}

/** Response schema of a failed envelope. */
export const FailureEnvelope = Type.Object(
  {
    status: Type.Literal(0),
    code: Type.Optional(Type.String()),
    msg: Type.String(),
  },
  { additionalProperties: true, description: 'Business failure, HTTP 200' },
);

export const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

/** HTTP 429 under /api: `{status:0, code:"rate_limited", msg}` with Retry-After and RateLimit-* headers. */
export const RateLimited = { ...FailureEnvelope, description: 'Rate limited: {status:0, code:"rate_limited", msg}, with Retry-After' };

/**
 * Responses of an authenticated business route. Failures are written by the error handler as
 * pre-serialised JSON (they bypass the 200 schema), so the 200 schema describes success only and
 * fast-json-stringify never has to try a union; the failure shapes are listed for the reader.
 */
export function businessResponses<T extends TSchema>(data: T) {
  return {
    200: { ...Envelope(data), description: 'Success envelope; failures are HTTP 200 {status:0, code, msg}' },
    403: OAuthErrorBody,
    429: RateLimited,
  };
}
