/**
 * A bench result file as a markdown table (docs/performance.md, closing notes):
 *   node --import tsx bench/report.ts bench/results/sqlite-default-2026-11-22.json
 */
import fs from 'node:fs';

interface Row {
  scenario: string;
  reqPerSec?: number;
  p50ms?: number;
  p99ms?: number;
  baselineReqPerSec?: number;
  ratio?: number;
  target?: string;
  met?: string;
  errors?: number;
  peakRssMB?: number;
  note?: string;
}

const file = process.argv[2];
if (!file) throw new Error('usage: bench/report.ts <result.json>');
const r = JSON.parse(fs.readFileSync(file, 'utf8')) as { scenarios: Row[]; generation: Record<string, number>; serverPeakRssMB: number };
const cell = (v: unknown) => (v === undefined || v === null || v === '' ? '' : String(v));
const lines = [
  '| scenario | req/s | p50 ms | p99 ms | baseline req/s | ratio | target | met | errors | peak RSS MB |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...r.scenarios.map((s) =>
    s.note
      ? `| ${s.scenario} | ${s.note} | | | | | | | | |`
      : `| ${s.scenario} | ${cell(s.reqPerSec)} | ${cell(s.p50ms)} | ${cell(s.p99ms)} | ${cell(s.baselineReqPerSec)} | ${cell(s.ratio)} | ${cell(s.target)} | ${s.met === 'NO' ? 'no' : cell(s.met)} | ${cell(s.errors)} | ${cell(s.peakRssMB)} |`,
  ),
];
console.log(lines.join('\n'));
console.log(`\nGeneration: ${JSON.stringify(r.generation)}; server peak RSS over the run ${r.serverPeakRssMB} MB.`);
