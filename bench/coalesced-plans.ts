/**
 * The plans PostgreSQL makes for coalesced reads (src/db/pg-reader.ts) on a kept dataset: the app runs
 * in process, each read scenario of the bench is sent 16 times at once, and every coalesced statement
 * the pool sends is run again under EXPLAIN ANALYZE with the same arguments. A coalesced statement is
 * planned without its arguments' values, so this is where a plan that reads a whole table would show.
 *
 *   node --import tsx bench/coalesced-plans.ts [--size default|quick] [--verbose]
 */
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openContext } from '../src/runtime.ts';
import { createServices } from '../src/services.ts';
import { option } from './options.ts';
import { SCENARIOS } from './scenarios.ts';
import { keptDataset } from './server.ts';

const saved = keptDataset('postgres', option('size', 'default'));
const VERBOSE = process.argv.includes('--verbose');
const ctx = await openContext(loadConfig({ ...saved.env, LOG_LEVEL: 'warn' }), createLogger('warn'));
const app = await buildApp(ctx, createServices(ctx));
await app.ready();

const sent: { text: string; values: unknown[] }[] = [];
const query = pg.Pool.prototype.query;
pg.Pool.prototype.query = function (this: pg.Pool, ...a: unknown[]) {
  const q = a[0] as { text?: string; values?: unknown[] };
  if (typeof q === 'object' && q.text?.startsWith('select rapport_args.i')) sent.push({ text: q.text, values: q.values ?? [] });
  return (query as (...x: unknown[]) => unknown).apply(this, a);
} as typeof query;

const client = new pg.Client({ connectionString: saved.env.DATABASE_URL });
await client.connect();
const d = saved.dataset;
for (const s of SCENARIOS) {
  if (s.reportOnly) continue;
  const request = () => app.inject({ method: s.method, url: s.path(d), headers: s.headers(d), ...(s.body ? { payload: s.body(d) } : {}) });
  await request(); // the first execution learns the statement's columns and parameter types
  sent.length = 0;
  await Promise.all(Array.from({ length: 16 }, request));
  const seen = new Set<string>();
  for (const { text, values } of sent) {
    if (seen.has(text)) continue;
    seen.add(text);
    const rows = (await client.query<{ 'QUERY PLAN': string }>({ text: `explain (analyze, buffers) ${text}`, values })).rows;
    const plan = rows.map((r) => r['QUERY PLAN']);
    const reads = (values[0] as unknown[]).length;
    const ms = Number(/Execution Time: ([\d.]+)/.exec(plan.join('\n'))?.[1]);
    const seqScans = plan.filter((l) => l.includes('Seq Scan')).map((l) => l.trim().replace(/\s+\(cost.*/, ''));
    console.log(
      `${s.name}: ${reads} reads in one statement, ${ms} ms (${(ms / reads).toFixed(3)} ms a read); sequential scans: ${seqScans.join(', ') || 'none'}`,
    );
    if (VERBOSE) console.log(plan.join('\n'));
  }
}
pg.Pool.prototype.query = query;
await client.end();
await app.close();
await ctx.database.close();
