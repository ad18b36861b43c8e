/**
 * A typed client of the Rapport API (README.md). The paths, parameters and answers are those of the
 * server's OpenAPI document: src/schema.ts is generated from it by openapi-typescript and committed
 * (the server's tests fail when it differs from the server's document); the calls are made by
 * openapi-fetch. Beside the client: tokens for scripts (session.ts) and paging (paging.ts).
 */
// `.js` specifiers, unlike the server's sources: declaration files keep a specifier as written, and
// a `.ts` one in dist/index.d.ts would not resolve for a package reading the SDK's types.
export type { components, operations, paths } from './schema.js';
export {
  type AccessTokenSource,
  ApiError,
  type RapportClient,
  type RapportClientOptions,
  createRapportClient,
  failureOf,
  unwrap,
} from './client.js';
export { type PasswordLogin, TokenSession, connect } from './session.js';
export { MAX_PAGE, type PageQuery, allPages, collectPages } from './paging.js';
export { ERROR_CODES, type ErrorCodeSpec, FIELD_ERROR_CODES, errorCodeSpec } from './error-table.js';
