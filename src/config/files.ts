/** Uploaded files and their rendering (FILE_*), customer imports (IMPORT_*). */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Env, intSetting } from './settings.ts';
import type { FilesConfig, ImportsConfig } from './types.ts';

function fontDirSetting(env: Env): string | undefined {
  const dir = env.FILE_FONT_DIR || undefined;
  if (dir === undefined) return undefined;
  const resolved = path.resolve(dir);
  if (!fs.existsSync(resolved) || !fs.statSync(resolved).isDirectory()) {
    throw new ConfigError(`FILE_FONT_DIR must be a directory of font files, got "${dir}"`);
  }
  return resolved;
}

/** Uploaded files and their rendering (FILE_*). */
export function filesSettings(env: Env): FilesConfig {
  return Object.freeze({
    maxBytes: intSetting(env, 'FILE_MAX_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxPages: intSetting(env, 'FILE_MAX_PAGES', 500, 1, 10_000),
    pageTimeoutMs: intSetting(env, 'FILE_RENDER_PAGE_TIMEOUT_MS', 10_000, 100, 600_000),
    renderMemoryMb: intSetting(env, 'FILE_RENDER_MEMORY_MB', 384, 192, 65_536),
    fontDir: fontDirSetting(env),
  });
}

/** Customer imports (IMPORT_*). */
export function importsSettings(env: Env): ImportsConfig {
  return Object.freeze({
    maxBytes: intSetting(env, 'IMPORT_MAX_BYTES', 1024 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    xlsxMaxBytes: intSetting(env, 'IMPORT_XLSX_MAX_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxRows: intSetting(env, 'IMPORT_MAX_ROWS', 1_000_000, 1, 100_000_000),
    xlsxMaxUncompressedBytes: intSetting(env, 'IMPORT_XLSX_MAX_INFLATED', 1024 * 1024 * 1024, 1024 * 1024, 16 * 1024 * 1024 * 1024),
    // 4,000,000 at most: an import holds 8 bytes of offsets a string besides their 64 MiB of text.
    xlsxMaxSharedStrings: intSetting(env, 'IMPORT_XLSX_MAX_STRINGS', 1_000_000, 1, 4_000_000),
    leaseSeconds: intSetting(env, 'IMPORT_LEASE_SECONDS', 30, 1, 3600),
  });
}
