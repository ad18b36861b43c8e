/** The projects area's public entry: the user's projects, which the settings read and refresh. */
export { projectQueries } from './api.ts';
