/**
 * `node scripts/openapi.js FILE`: writes the server's OpenAPI document to FILE (`npm run openapi`:
 * docs/openapi.json; the SDK's build: packages/sdk/openapi.json). It runs the built server's
 * `openapi` command (dist/, so `npm run build:server` first) on a throw-away SQLite database in a
 * temporary directory and none of the caller's database settings: the document does not depend on
 * the database, and making it must not migrate or create one. FILE is written only when it changed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: node scripts/openapi.js FILE\n');
  process.exit(2);
}
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/rapport.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rapport-openapi-'));
try {
  const doc = execFileSync(process.execPath, [cli, 'openapi'], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dir, LOG_LEVEL: 'warn', SQLITE_READ_THREAD: 'false' },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
  });
  const file = path.resolve(out);
  if (!fs.existsSync(file) || !fs.readFileSync(file).equals(doc)) fs.writeFileSync(file, doc);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
