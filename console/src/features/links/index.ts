/** The links area's public entry: its query keys, which the live stream refreshes. */
export { linkQueries } from './api.ts';
