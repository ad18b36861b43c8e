/**
 * How the benches start the real server: as `npm start` does (package.json), so they measure what an
 * operator runs. GLIBC_TUNABLES pins glibc's mmap threshold (see bin/rapport.js).
 */
export const SERVER_ARGS = ['--max-old-space-size=256', 'bin/rapport.js', 'serve'];
export const SERVER_ENV = { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' };
