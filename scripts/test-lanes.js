#!/usr/bin/env node
// Prints the test files of one CI lane (test/lanes.js), space-separated, for `vitest run <files>`.
import fs from 'node:fs';
import path from 'node:path';
import { mainThreadReads, sqliteOnly } from '../test/lanes.js';

const root = path.resolve(import.meta.dirname, '..');
const lane = process.argv[2];

for (const listed of [...sqliteOnly, ...mainThreadReads]) {
  if (!fs.existsSync(path.join(root, listed))) {
    console.error(`test/lanes.js lists ${listed}, which does not exist`);
    process.exit(1);
  }
}

function testFiles(dir) {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'fixtures' ? [] : testFiles(rel);
    return e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

let files;
if (lane === 'postgres') {
  files = testFiles('test').filter((f) => !sqliteOnly.some((s) => f === s || f.startsWith(`${s}/`)));
} else if (lane === 'main-thread-reads') {
  files = mainThreadReads;
} else {
  console.error('usage: node scripts/test-lanes.js postgres|main-thread-reads');
  process.exit(2);
}
process.stdout.write(`${files.sort().join(' ')}\n`);
