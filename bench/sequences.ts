/**
 * Sequence enrolment figures (docs/sequences.md "Enrolment"): a project of N customers (100,000 by
 * default, stored through the ingestion API), one sequence, and all of them enrolled as one job
 * (`POST …/sequence/{id}/enrollments` with `all: {}`, the bulk job of action `enroll`), against the
 * real server as `npm start` runs it: how long the request takes to answer (the 100,000 ids frozen), and
 * the job's time from the request to `done`, with the enrolments and their events written.
 *   node --import tsx bench/sequences.ts [--db sqlite|postgres] [--customers N]
 * `npm run bench` runs it too (the "sequence enrol 100k" row).
 */
import os from 'node:os';
import { type BenchServer, sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';

const DB = option('db', 'sqlite');
const CUSTOMERS = Number(option('customers', '100000'));
const BATCH = 1000;

async function main(): Promise<void> {
  let server: BenchServer | null = null;
  try {
    server = await startBenchServer({ db: DB, label: 'sequences' });
    const { base } = server;
    const { auth, json, appId } = await server.signIn('Sequence bench');
    const loadStarted = performance.now();
    for (let i = 0; i < CUSTOMERS; i += BATCH) {
      const batch = [];
      for (let j = i; j < Math.min(CUSTOMERS, i + BATCH); j++)
        batch.push({
          event_type: 'create',
          domainType: 'Customer',
          domainId: `s${j}`,
          body: { name: `Lead ${j}`, email: `lead${j}@example.com` },
        });
      // On a busy machine the server may shed a batch (`overloaded`): it is sent again after a pause.
      for (let attempt = 0; ; attempt += 1) {
        const res = await fetch(`${base}/api/v1.7/app/${appId}/events`, { method: 'POST', headers: json, body: JSON.stringify(batch) });
        const answer = (await res.json()) as { status: number; code?: string };
        if (answer.status === 1) break;
        if (answer.code !== 'overloaded' || attempt >= 20) throw new Error(`customers not stored: ${JSON.stringify(answer)}`);
        await sleep(500);
      }
    }
    console.error(`${CUSTOMERS} customers stored in ${Math.round(performance.now() - loadStarted)} ms`);
    const steps = [
      { type: 'email', waitDays: 0, title: 'Hello {{name}}', html: '<p>Hi {{name}}, the deck: {{own_link}}</p>' },
      { type: 'call', waitDays: 2, title: 'Call', note: 'Ask about the budget' },
      { type: 'email', waitDays: 3, title: 'Following up', html: '<p>{{name}}, any thoughts?</p>' },
      { type: 'task', waitDays: 5, title: 'Last try' },
    ];
    const made = (await (
      await fetch(`${base}/api/v1.7/app/${appId}/sequences`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: 'Bench', steps }),
      })
    ).json()) as { status: number; data: { id: string } };
    if (made.status !== 1) throw new Error(`sequence not made: ${JSON.stringify(made)}`);

    const rss = server.rss;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
    const started = performance.now();
    const res = await fetch(`${base}/api/v1.7/app/${appId}/sequence/${made.data.id}/enrollments`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ all: {} }),
    });
    const job = (await res.json()) as { status: number; data: { id: string; total: number } };
    if (job.status !== 1) throw new Error(`enrolment not started: ${JSON.stringify(job)}`);
    const answeredMs = performance.now() - started;
    let progress = { status: '', done: 0, failed: 0, total: 0 };
    while (progress.status !== 'done' && progress.status !== 'failed') {
      await sleep(100);
      const r = await fetch(`${base}/api/v1.7/app/${appId}/customers/bulk/${job.data.id}`, { headers: auth });
      // A poll answered 429 (the token's budget) is simply taken again.
      if (r.status !== 200) continue;
      progress = ((await r.json()) as { data: typeof progress }).data;
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const seq = (await (await fetch(`${base}/api/v1.7/app/${appId}/sequence/${made.data.id}`, { headers: auth })).json()) as {
      data: { enrollments: Record<string, number> };
    };
    console.log(
      JSON.stringify(
        {
          database: DB,
          machine: { cpus: os.cpus().length, node: process.version },
          customers: CUSTOMERS,
          jobStatus: progress.status,
          enrolled: progress.done,
          failed: progress.failed,
          activeEnrollments: seq.data.enrollments.active,
          requestMs: Math.round(answeredMs),
          seconds: Math.round(seconds * 10) / 10,
          enrolmentsPerSec: Math.round(progress.done / seconds),
          peakRssMB: Math.round(peak / 1e6),
        },
        null,
        2,
      ),
    );
  } finally {
    await server?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
