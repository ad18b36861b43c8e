// lanes: sqlite
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadViewerScript } from '../../src/lib/viewer-script.ts';

/**
 * The share-link viewer's script as `npm run build` makes it (the tests' global setup builds it):
 * one minified IIFE, within its budget, nothing a strict CSP or the host page would object to.
 */
const BUDGET_GZIP_BYTES = 15 * 1024;

describe('the viewer script', () => {
  const script = loadViewerScript();

  it('is built under a name with its hash and listed in the manifest', () => {
    expect(script).not.toBeNull();
    expect(script?.name).toMatch(/^viewer\.[0-9a-f]{16}\.js$/);
    const manifest = JSON.parse(fs.readFileSync(new URL('../../dist/viewer/manifest.json', import.meta.url), 'utf8')) as { script: string };
    expect(manifest.script).toBe(script?.name);
  });

  it(`is at most ${BUDGET_GZIP_BYTES} bytes gzipped`, () => {
    const size = gzipSync(script?.body ?? Buffer.alloc(0), { level: 9 }).length;
    expect(size).toBeGreaterThan(1000);
    expect(size).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  it('is one IIFE: no eval, no Function constructor, no globals, no cookie of its own', () => {
    const text = script?.body.toString('utf8') ?? '';
    expect(text.trim()).toMatch(/^(?:"use strict";)?\(\(\)=>\{[\s\S]*\}\)\(\);$/);
    expect(text).not.toMatch(/\beval\(|new Function\(|document\.cookie|localStorage/);
  });
});
