/**
 * Latency of the overview in each time window (time_range_type 1 all, 2 three months, 3 a month, 4 a
 * week) for the 100,000- and the 1,000-record customer, one request at a time, on a dataset kept by
 * `npm run bench -- [--db postgres] --keep` (the bench's scenarios measure window 1 only):
 *
 *   node --import tsx bench/overview-windows.ts [--db sqlite|postgres] [--size default|quick] [--requests 300]
 *
 * Window 1 reads the all-time totals; the others sum the daily rollups from the window's first day.
 */
import { option } from './options.ts';
import { keptDataset, startServer } from './server.ts';

const DB = option('db', 'sqlite');
const SIZE = option('size', 'default');
const REQUESTS = Number(option('requests', '300'));
const saved = keptDataset(DB, SIZE);
const d = saved.dataset;

const { server, base } = await startServer(saved.env);

const at = (sorted: number[], q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(2);
console.log(`| customer | window | median ms | p99 ms | records in the window |\n| --- | --- | --- | --- | --- |`);
for (const [label, id] of [
  ['100,000 records', d.bigCustomerId],
  ['1,000 records', d.smallCustomerId],
] as const) {
  for (const window of [1, 2, 3, 4]) {
    const url = `${base}/api/v1.7/customer/${id}/overview?time_range_type=${window}`;
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < REQUESTS; i += 1) {
      const t0 = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${d.token}` } });
      const body = (await res.json()) as { status: number; data: { total: number } };
      times.push(performance.now() - t0);
      if (body.status !== 1) throw new Error(`overview refused: ${JSON.stringify(body)}`);
      total = body.data.total;
    }
    times.sort((a, b) => a - b);
    console.log(`| ${label} | ${window} | ${at(times, 0.5)} | ${at(times, 0.99)} | ${total} |`);
  }
}
server.kill('SIGTERM');
