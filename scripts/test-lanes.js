#!/usr/bin/env node
// Prints the test files of one CI lane, space-separated, for `vitest run <files>`. Every test file
// (test/**/*.test.ts) names the lanes it runs in on its first line, e.g. `// lanes: sqlite postgres`
// (test/README.md says which to pick); a file without that line, or naming an unknown lane, fails
// here, so the author of every new file decides where it runs.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const LANES = ['sqlite', 'postgres', 'main-thread-reads'];
const lane = process.argv[2];
if (!LANES.includes(lane ?? '')) {
  console.error(`usage: node scripts/test-lanes.js ${LANES.join('|')}`);
  process.exit(2);
}

function testFiles(dir) {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(rel);
    return e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

const problems = [];
const files = testFiles('test').filter((file) => {
  const first = fs.readFileSync(path.join(root, file), 'utf8').split('\n', 1)[0] ?? '';
  const m = /^\/\/ lanes: ([a-z -]+)$/.exec(first);
  if (!m) {
    problems.push(`${file}: its first line must name its lanes, e.g. "// lanes: sqlite postgres"`);
    return false;
  }
  const lanes = (m[1] ?? '').split(' ').filter(Boolean);
  for (const l of lanes) if (!LANES.includes(l)) problems.push(`${file}: unknown lane "${l}"`);
  return lanes.includes(lane);
});
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
process.stdout.write(`${files.sort().join(' ')}\n`);
