/**
 * A typed client of the Rapport API. The paths, parameters and answers are those of the server's own
 * OpenAPI document: src/schema.ts is generated from it by the build (openapi-typescript) and not kept
 * in git, so the client always matches the server beside it. The calls are made by openapi-fetch.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
// `.js` specifiers, unlike the server's sources: declaration files keep a specifier as written, and
// a `.ts` one in dist/index.d.ts would not resolve for a package reading the SDK's types.
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export type RapportClient = Client<paths>;

export interface RapportClientOptions extends ClientOptions {
  /** An access token, sent with every call as `Authorization: Bearer <token>`. */
  accessToken?: string;
}

/** A client of the server at `baseUrl` (by default the page's own origin, in a browser). */
export function createRapportClient({ accessToken, ...options }: RapportClientOptions = {}): RapportClient {
  const client = createClient<paths>(options);
  if (accessToken !== undefined) {
    client.use({
      onRequest({ request }) {
        request.headers.set('Authorization', `Bearer ${accessToken}`);
        return request;
      },
    });
  }
  return client;
}
