/**
 * Sequence enrolment figures (docs/sequences.md "Enrolment"): a project of N customers (100,000 by
 * default, stored through the ingestion API), one sequence, and all of them enrolled as one job
 * (`POST …/sequence/{id}/enrollments` with `all: {}`, the bulk job of action `enroll`), against the
 * real server as `npm start` runs it: how long the request takes to answer (the 100,000 ids frozen), and
 * the job's time from the request to `done`, with the enrolments and their events written.
 *   node --import tsx bench/sequences.ts [--db sqlite|postgres] [--customers N]
 * `npm run bench` runs it too (the "sequence enrol 100k" row).
 */
import { type BenchServer, sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';
import { storeCustomers } from './support/customers.ts';
import { printFigures, runMain, samplePeak } from './support/report.ts';

const DB = option('db', 'sqlite');
const CUSTOMERS = Number(option('customers', '100000'));

async function main(): Promise<void> {
  let server: BenchServer | null = null;
  try {
    server = await startBenchServer({ db: DB, label: 'sequences' });
    const { base } = server;
    const session = await server.signIn('Sequence bench');
    const { auth, json, appId } = session;
    const loadStarted = performance.now();
    // On a busy machine the server may shed a batch (`overloaded`): it is sent again after a pause.
    await storeCustomers(
      base,
      session,
      CUSTOMERS,
      (j) => ({ id: `s${j}`, body: { name: `Lead ${j}`, email: `lead${j}@example.com` } }),
      20,
    );
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

    const sampler = samplePeak(server.rss);
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
    sampler.stop();
    const seq = (await (await fetch(`${base}/api/v1.7/app/${appId}/sequence/${made.data.id}`, { headers: auth })).json()) as {
      data: { enrollments: Record<string, number> };
    };
    printFigures(DB, {
      customers: CUSTOMERS,
      jobStatus: progress.status,
      enrolled: progress.done,
      failed: progress.failed,
      activeEnrollments: seq.data.enrollments.active,
      requestMs: Math.round(answeredMs),
      seconds: Math.round(seconds * 10) / 10,
      enrolmentsPerSec: Math.round(progress.done / seconds),
      peakRssMB: Math.round(sampler.peak() / 1e6),
    });
  } finally {
    await server?.stop();
  }
}

runMain(main);
