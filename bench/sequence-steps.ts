/**
 * Sequence steps figures: the real server (as `npm start` runs it) on a fresh database, running the
 * first step (an e-mail) of one sequence for N enrolled customers, mailed to a local SMTP server in
 * this process (smtp-server, which reads every message and keeps nothing). The figure is steps sent
 * per second from the enrolment call (steps run as soon as enrolments commit, alongside the enrolment
 * job) to the last mail accepted by SMTP, and the same from the job's end: each enrolment claimed by
 * the runner's lease, its step placed in the window and run in one transaction (the step run, the
 * recipient row queued, the `step` event, the advance); then the campaign sender's claim, merge,
 * render and SMTP hand-off.
 *   node --import tsx bench/sequence-steps.ts [--db sqlite|postgres] [--customers N]
 * `npm run bench` runs it too (the "sequence steps" row). The mail rate limit is lifted
 * (MAIL_RATE_PER_SECOND=10000), MAIL_CONNECTIONS is the default (5), the window is the whole week.
 */
import { type BenchServer, sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';
import { storeCustomers } from './support/customers.ts';
import { printFigures, runMain, samplePeak } from './support/report.ts';
import { startSmtpSink } from './support/smtp.ts';

const DB = option('db', 'sqlite');
const CUSTOMERS = Number(option('customers', '5000'));
/** The enrolment call takes at most this many customers. */
const ENROL_CHUNK = 10_000;

async function main(): Promise<void> {
  const smtp = await startSmtpSink();
  let server: BenchServer | null = null;
  try {
    server = await startBenchServer({
      db: DB,
      label: 'sequences',
      env: { SMTP_URL: smtp.url, MAIL_RATE_PER_SECOND: '10000' },
    });
    const { base } = server;
    const session = await server.signIn('Sequence bench');
    const { json, appId } = session;
    // A call answered 503 `overloaded` (the server sheds load while it works) is tried again, as a client would.
    const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
      for (;;) {
        const res = await fetch(`${base}/api/v1.7/app/${appId}${path}`, {
          method,
          headers: json,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const answer = (await res.json()) as { status: number; code?: string; data: Record<string, unknown> };
        if (answer.code === 'overloaded') {
          await sleep(200);
          continue;
        }
        if (answer.status !== 1) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
        return answer.data;
      }
    };
    const ids = await storeCustomers(base, session, CUSTOMERS, (j) => ({
      id: `s${j}`,
      body: { name: `Reader ${j}`, email: `r${j}@example.com` },
    }));
    await call('PUT', '/sequence-settings', {
      timeZone: 'UTC',
      windowStart: '00:00',
      windowEnd: '24:00',
      days: [1, 2, 3, 4, 5, 6, 7],
      dailyCap: 10_000,
    });
    const html =
      '<html><body><h1>Hello {{name}}</h1><p>Our <a href="https://shop.example/pricing">pricing</a>, ' +
      'and a word from {{owner_name}}.</p><p>{{company}}</p></body></html>';
    const made = await call('POST', '/sequences', {
      name: 'Bench',
      steps: [
        { type: 'email', waitDays: 0, title: 'Hello', html },
        { type: 'task', waitDays: 5, title: 'Follow up' },
      ],
    });
    const sequenceId = made.id as string;
    const sampler = samplePeak(server.rss);
    const enrolStarted = performance.now();
    const jobs: string[] = [];
    for (let i = 0; i < ids.length; i += ENROL_CHUNK) {
      jobs.push((await call('POST', `/sequence/${sequenceId}/enrollments`, { customer_ids: ids.slice(i, i + ENROL_CHUNK) })).id as string);
    }
    // Steps start as soon as enrolments are committed: the figure runs from the first enrolment call.
    for (const job of jobs) {
      for (;;) {
        const j = await call('GET', `/customers/bulk/${job}`);
        if (j.status === 'done' || j.status === 'failed') break;
        await sleep(25);
      }
    }
    const enrolSeconds = (performance.now() - enrolStarted) / 1000;
    // Steps run while the enrolment job wrote shared the database with it: the figure after it is the runner's own pace.
    const atEnrolled = { received: smtp.received(), at: performance.now() };
    while (smtp.received() < CUSTOMERS) {
      await sleep(25);
      if (performance.now() - enrolStarted > 30 * 60_000) throw new Error(`only ${smtp.received()} of ${CUSTOMERS} mails after 30 minutes`);
    }
    const seconds = (smtp.lastAt() - enrolStarted) / 1000;
    sampler.stop();
    const s = (await call('GET', `/sequence/${sequenceId}`)).enrollments as Record<string, number>;
    const received = smtp.received();
    const lastAt = smtp.lastAt();
    printFigures(DB, {
      customers: CUSTOMERS,
      received,
      enrolments: s,
      enrolSeconds: Math.round(enrolSeconds * 10) / 10,
      seconds: Math.round(seconds * 10) / 10,
      stepsPerSec: Math.round(received / seconds),
      afterEnrolment: {
        steps: received - atEnrolled.received,
        seconds: Math.round((lastAt - atEnrolled.at) / 100) / 10,
        stepsPerSec: Math.round(((received - atEnrolled.received) * 1000) / Math.max(1, lastAt - atEnrolled.at)),
      },
      peakRssMB: Math.round(sampler.peak() / 1e6),
    });
  } finally {
    await server?.stop();
    await smtp.close();
  }
}

runMain(main);
