// lanes: sqlite
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = `${ROOT}.dependency-cruiser.cjs`;
const DEPCRUISE = `${ROOT}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`;

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Runs dependency-cruiser with the project's rules on `<cwd>/src`, as `npm run lint` does on the real tree. */
function cruise(cwd: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // It exits with the number of errors it found: the report on stdout is what counts.
    execFile(
      process.execPath,
      [DEPCRUISE, '--config', CONFIG, '--output-type', 'json', 'src'],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (stdout === '') return reject(err ?? new Error(`no report: ${stderr}`));
        const report = JSON.parse(stdout) as { summary: { violations: Violation[] } };
        // Packages are named by where they resolve from this folder, which differs per checkout.
        const short = (path: string) => path.replace(/^(\.\.\/)+node_modules\//, 'node_modules/');
        resolve(report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${short(v.to)}`).sort());
      },
    );
  });
}

describe('layers (dependency-cruiser)', () => {
  it('finds no violation in src/', { timeout: 120_000 }, async () => {
    expect(await cruise(ROOT)).toEqual([]);
  });

  it('catches each deliberate violation of the fixture tree, and nothing else', { timeout: 120_000 }, async () => {
    expect(await cruise(`${ROOT}test/fixtures/layers`)).toEqual(
      [
        'db-is-the-bottom: src/db/leak.ts → src/modules/orders/service.ts',
        'modules-meet-through-services: src/modules/orders/service.ts → src/modules/stock/repository.ts',
        'modules-meet-through-services: src/modules/orders/service.ts → src/modules/stock/reservations.repository.ts',
        'no-circular: src/db/dialect.ts → src/db/prepared.ts',
        'db-through-its-index: src/modules/orders/repository.ts → src/db/tables.ts',
        'no-circular: src/modules/orders/service.ts → src/modules/stock/service.ts',
        'repositories-are-reached-by-their-module: src/modules/orders/service.ts → src/modules/stock/repository.ts',
        'repositories-are-reached-by-their-module: src/modules/orders/service.ts → src/modules/stock/reservations.repository.ts',
        'routes-call-services: src/modules/orders/routes.ts → src/db/index.ts',
        'services-never-import-fastify: src/modules/orders/service.ts → node_modules/fastify/fastify.js',
        'services-never-reach-fastify: src/modules/orders/service.ts → node_modules/fastify/fastify.js',
        'services-never-reach-fastify: src/modules/stock/service.ts → node_modules/fastify/fastify.js',
      ].sort(),
    );
  });
});
