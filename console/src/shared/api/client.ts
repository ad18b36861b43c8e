import { createRapportClient } from '@rapport/sdk';
import { session } from './session.ts';

/**
 * The one client of the API: the session's access token on every call, renewed once and the call
 * repeated when the server refuses it as expired. Only features' api.ts files use it.
 */
export const api = createRapportClient({
  baseUrl: window.location.origin,
  accessToken: () => session.token(),
  refreshAccessToken: () => session.refresh(),
});

export { ApiError, unwrap } from '@rapport/sdk';
