// lanes: sqlite
import fs from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * The web console's first load stays small: the entry chunk and every chunk it imports statically
 * (what the browser must fetch before the first screen) are at most 300 KB gzipped together. Pages,
 * the signed-in shell and ECharts are loaded later, by dynamic imports. Reads the build's manifest
 * (console/dist/.vite/manifest.json, written by `npm run build`).
 */
const DIST = path.resolve(import.meta.dirname, '../../console/dist');
const BUDGET = 300 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

describe('the console build', () => {
  it('loads at most 300 KB of gzipped JavaScript before its first screen', () => {
    const manifestFile = path.join(DIST, '.vite/manifest.json');
    expect(fs.existsSync(manifestFile), 'console/dist is missing: run `npm run build`').toBe(true);
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>;
    const entries = Object.keys(manifest).filter((k) => manifest[k]?.isEntry);
    expect(entries).toHaveLength(1);
    const firstLoad = new Set<string>();
    const walk = (key: string) => {
      if (firstLoad.has(key)) return;
      firstLoad.add(key);
      for (const i of manifest[key]?.imports ?? []) walk(i);
    };
    walk(entries[0] as string);
    const sizes = [...firstLoad].map((k) => {
      const file = manifest[k]?.file as string;
      return { file, gzipped: gzipSync(fs.readFileSync(path.join(DIST, file)), { level: 9 }).length };
    });
    const total = sizes.reduce((sum, s) => sum + s.gzipped, 0);
    console.log(`console first load: ${(total / 1024).toFixed(1)} KB gzipped in ${sizes.length} files`);
    expect(total, JSON.stringify(sizes)).toBeLessThanOrEqual(BUDGET);
    // The entry's page is the HTML's only script: nothing else is loaded up front.
    const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
    expect([...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1])).toEqual([`/console/${manifest[entries[0] as string]?.file}`]);
  });

  it('leaves a brotli and a gzip copy beside every script and style sheet worth compressing', () => {
    const assets = path.join(DIST, 'assets');
    const files = fs.readdirSync(assets).filter((f) => /\.(js|css)$/.test(f) && fs.statSync(path.join(assets, f)).size >= 1024);
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const body = fs.readFileSync(path.join(assets, f));
      expect(brotliDecompressSync(fs.readFileSync(path.join(assets, `${f}.br`))).equals(body), f).toBe(true);
      expect(gunzipSync(fs.readFileSync(path.join(assets, `${f}.gz`))).equals(body), f).toBe(true);
    }
  });

  it('keeps ECharts and the pages out of the first load', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(DIST, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
    const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry) as string;
    const firstLoad = new Set<string>();
    const walk = (key: string) => {
      if (firstLoad.has(key)) return;
      firstLoad.add(key);
      for (const i of manifest[key]?.imports ?? []) walk(i);
    };
    walk(entry);
    const lazy = Object.keys(manifest).filter((k) => /echarts|pages\/\w+Page\.tsx$/.test(k));
    expect(lazy.length).toBeGreaterThan(0);
    expect(lazy.filter((k) => firstLoad.has(k))).toEqual([]);
  });
});
