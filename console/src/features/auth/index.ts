/** The auth area's public entry: what the other areas use of it, the server's public facts (server-info). */
export { authQueries } from './api.ts';
