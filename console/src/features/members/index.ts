/** The members area's public entry: the project's members, which other areas read for roles and owners. */
export { memberQueries } from './api.ts';
