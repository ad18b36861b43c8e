import fs from 'node:fs';
import { gzipSync } from 'node:zlib';

/** The share-link viewer's script, or the site snippet, as built (scripts/build-server.js writes dist/viewer/). */
export interface ViewerScript {
  /** `viewer.<hash>.js` (`site.<hash>.js`): the name changes with the content, so it is served immutable. */
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
  return loadBuilt('script', /^viewer\.[0-9a-f]{16}\.js$/);
}

/** Reads the built site snippet (docs/site-tracking.md), as loadViewerScript does the viewer's. */
export function loadSiteScript(): ViewerScript | null {
  return loadBuilt('site', /^site\.[0-9a-f]{16}\.js$/);
}

function loadBuilt(entry: 'script' | 'site', name: RegExp): ViewerScript | null {
  for (const dir of [new URL('./viewer/', import.meta.url), new URL('../../dist/viewer/', import.meta.url)]) {
    try {
      const manifest = JSON.parse(fs.readFileSync(new URL('manifest.json', dir), 'utf8')) as Record<string, unknown>;
      const file = manifest[entry];
      if (typeof file !== 'string' || !name.test(file)) continue;
      const body = fs.readFileSync(new URL(file, dir));
      return { name: file, body, gzipped: gzipSync(body, { level: 9 }) };
    } catch {
      // Not here: the next place.
    }
  }
  return null;
}
