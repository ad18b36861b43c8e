/**
 * How the bench starts the real server: as `npm start` does (package.json), so it measures what an
 * operator runs. GLIBC_TUNABLES pins glibc's mmap threshold (see bin/rapport.js).
 */

/** The server's node flags as `npm start` has them; extra flags go after these, so a later one overrides. */
export const SERVER_FLAGS = ['--max-old-space-size=256'];
export const SERVER_ARGS = ['bin/rapport.js', 'serve'];
export const SERVER_ENV = { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' };
