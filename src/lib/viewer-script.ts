import fs from 'node:fs';
import { gzipSync } from 'node:zlib';

/** The share-link viewer's script as built (scripts/build-server.js writes dist/viewer/). */
export interface ViewerScript {
  /** `viewer.<hash>.js`: the name changes with the content, so it is served immutable. */
  name: string;
  body: Buffer;
  gzipped: Buffer;
}

/**
 * Reads the built viewer script: beside the bundle (dist/rapport.js → dist/viewer/) or, when the
 * sources run directly (the tests), from the checkout's dist/. Null when it has not been built:
 * the viewer's pages then show without it (nothing is recorded).
 */
export function loadViewerScript(): ViewerScript | null {
  for (const dir of [new URL('./viewer/', import.meta.url), new URL('../../dist/viewer/', import.meta.url)]) {
    try {
      const manifest = JSON.parse(fs.readFileSync(new URL('manifest.json', dir), 'utf8')) as { script?: unknown };
      if (typeof manifest.script !== 'string' || !/^viewer\.[0-9a-f]{16}\.js$/.test(manifest.script)) continue;
      const body = fs.readFileSync(new URL(manifest.script, dir));
      return { name: manifest.script, body, gzipped: gzipSync(body, { level: 9 }) };
    } catch {
      // Not here: the next place.
    }
  }
  return null;
}
