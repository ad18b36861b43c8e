/**
 * Campaign mail figures: the real server (as `npm start` runs it) on a fresh database, sending one
 * campaign to a local SMTP server in this process (smtp-server, which reads every message and keeps
 * nothing). The figure is mails per second from the create call to the campaign's `done`: each mail
 * claimed from the durable queue (`sending` written before the SMTP call, `sent` after), merged,
 * rendered with its tracked links and pixel, handed to the pooled SMTP transport, and its send
 * written to the Post counters and the customer's behaviour through ingestion.
 *   node --import tsx bench/mail.ts [--db sqlite|postgres] [--recipients N]
 * `npm run bench` runs it too (the "campaign mail" row). The rate limit is lifted
 * (MAIL_RATE_PER_SECOND=10000) so that the figure is what the sender can do; MAIL_CONNECTIONS is
 * the default (5).
 */
import { type BenchServer, sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';
import { storeCustomers } from './support/customers.ts';
import { printFigures, runMain, samplePeak } from './support/report.ts';
import { startSmtpSink } from './support/smtp.ts';

const DB = option('db', 'sqlite');
const RECIPIENTS = Number(option('recipients', '5000'));

async function main(): Promise<void> {
  const smtp = await startSmtpSink();
  let server: BenchServer | null = null;
  try {
    server = await startBenchServer({
      db: DB,
      label: 'mail',
      env: { SMTP_URL: `${smtp.url}${process.env.BENCH_SMTP_QUERY ?? ''}`, MAIL_RATE_PER_SECOND: '10000' },
    });
    const { base } = server;
    const session = await server.signIn('Mail bench');
    const { auth, json, appId } = session;
    const ids = await storeCustomers(base, session, RECIPIENTS, (j) => ({
      id: `m${j}`,
      body: { name: `Reader ${j}`, email: `r${j}@example.com` },
    }));
    const html =
      '<html><body><h1>Hello {{name}}</h1><p>Our <a href="https://shop.example/autumn?utm_source=mail">autumn offer</a> ' +
      'and <a href="https://shop.example/pricing">pricing</a>.</p><p>{{company}}</p></body></html>';
    const sampler = samplePeak(server.rss);
    const started = performance.now();
    const created = (await (
      await fetch(`${base}/api/v1.7/app/${appId}/posts`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ title: 'Autumn', html, customer_ids: ids.join(',') }),
      })
    ).json()) as { status: number; data: { postId: string } };
    if (created.status !== 1) throw new Error(`campaign not created: ${JSON.stringify(created)}`);
    const createdMs = performance.now() - started;
    let progress: { status: string; states: Record<string, number> } = { status: '', states: {} };
    while (progress.status !== 'done') {
      await sleep(25);
      const res = await fetch(`${base}/api/v1.7/app/${appId}/post/${created.data.postId}`, { headers: auth });
      progress = ((await res.json()) as { data: typeof progress }).data;
    }
    const seconds = (performance.now() - started) / 1000;
    sampler.stop();
    printFigures(DB, {
      recipients: RECIPIENTS,
      received: smtp.received(),
      sent: progress.states.sent ?? 0,
      createMs: Math.round(createdMs),
      seconds: Math.round(seconds * 10) / 10,
      mailsPerSec: Math.round((progress.states.sent ?? 0) / seconds),
      peakRssMB: Math.round(sampler.peak() / 1e6),
    });
  } finally {
    await server?.stop();
    await smtp.close();
  }
}

runMain(main);
