/** The client: openapi-fetch over the generated paths, with a bearer token and one retry after a renewal. */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
// `.js` specifiers, unlike the server's sources: declaration files keep a specifier as written, and
// a `.ts` one in dist/index.d.ts would not resolve for a package reading the SDK's types.
import type { paths } from './schema.js';

export type RapportClient = Client<paths>;

/** A token, or where to get the current one at each call (a console keeps it in memory and renews it). */
export type AccessTokenSource = string | (() => string | undefined);

export interface RapportClientOptions extends ClientOptions {
  /** Sent with every call as `Authorization: Bearer <token>`. */
  accessToken?: AccessTokenSource;
  /**
   * Called when a call is refused with 403 `access_denied` (an expired or revoked token): resolves to
   * a new token, with which the call is made once more, or to undefined (the refusal stands).
   */
  refreshAccessToken?: () => Promise<string | undefined>;
}

/**
 * A failure answered by the server, with its stable `code` (the `code` of `{status:0, code, msg}`, or
 * the `error` of `{error, error_description}`): match on `code`, show `detail` only as a detail.
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly httpStatus: number,
    /** The whole failure body, for fields beyond code and text (an ingestion batch's `errors`). */
    readonly body?: unknown,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'ApiError';
  }
}

/** The failure a body describes, if it is one. */
export function failureOf(body: unknown, httpStatus: number): ApiError | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const o = body as { status?: unknown; code?: unknown; msg?: unknown; error?: unknown; error_description?: unknown };
  if (typeof o.error === 'string') return new ApiError(o.error, String(o.error_description ?? ''), httpStatus, body);
  // `status` 0 with a text: a platform user (whose `status` 0 means "not activated") has none.
  if (o.status === 0 && (typeof o.code === 'string' || typeof o.msg === 'string')) {
    return new ApiError(typeof o.code === 'string' ? o.code : 'unknown', String(o.msg ?? ''), httpStatus, body);
  }
  return undefined;
}

type Unwrapped<D> = D extends { status: 1; data: infer X } ? X : D;

/**
 * The business object of an answer: `data` of a success envelope, or the bare body of the calls that
 * have none. A failure (any HTTP status, and the HTTP 200 `{status:0}` envelope) throws ApiError.
 */
export function unwrap<D>(result: { data?: D; error?: unknown; response: Response }): Unwrapped<NonNullable<D>> {
  const status = result.response.status;
  const failure = failureOf(result.error, status) ?? failureOf(result.data, status);
  if (failure) throw failure;
  if (!result.response.ok || result.data === undefined) throw new ApiError('http_error', `HTTP ${status}`, status);
  const body = result.data as unknown;
  if (typeof body === 'object' && body !== null && (body as { status?: unknown }).status === 1 && 'data' in body) {
    return (body as { data: unknown }).data as Unwrapped<NonNullable<D>>;
  }
  return body as Unwrapped<NonNullable<D>>;
}

/** A client of the server at `baseUrl` (by default the page's own origin, in a browser). */
export function createRapportClient({ accessToken, refreshAccessToken, ...options }: RapportClientOptions = {}): RapportClient {
  const client = createClient<paths>(options);
  if (accessToken === undefined) return client;
  const tokenNow = typeof accessToken === 'function' ? accessToken : () => accessToken;
  // Each request as it was before it was sent, so a refused one can be sent again.
  const unsent = new WeakMap<Request, Request>();
  client.use({
    onRequest({ request }) {
      const token = tokenNow();
      if (token !== undefined) request.headers.set('Authorization', `Bearer ${token}`);
      if (refreshAccessToken) unsent.set(request, request.clone());
      return request;
    },
    async onResponse({ request, response }) {
      if (response.status !== 403 || !refreshAccessToken) return response;
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as { error?: string } | null;
      const again = unsent.get(request);
      if (body?.error !== 'access_denied' || again === undefined) return response;
      const token = await refreshAccessToken();
      if (token === undefined) return response;
      again.headers.set('Authorization', `Bearer ${token}`);
      return fetch(again);
    },
  });
  return client;
}
