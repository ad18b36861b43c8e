/**
 * Playbook lag figures: the real server (as `npm start` runs it) on a fresh database, one project with
 * a playbook "a form filled in → a task for the owner and an inbox notice". Behaviour records arrive
 * through the ingestion API at a steady pace, one record a request, one in five a `submit_form` of a
 * customer who has not filled one in yet (the rest site visits, which the evaluator reads past). Each
 * form makes one run; the figure is each run's `lagMs` as the runs API reports it: from the record's
 * write (its outbox row) to the commit of the run with its actions, the evaluator's wait when idle
 * (1 s) included. p50, p95 and the worst over every run.
 *   node --import tsx bench/playbooks.ts [--db sqlite|postgres] [--forms N] [--rate RECORDS_PER_S]
 * `npm run bench` runs it too (the "playbook lag" row).
 */
import { type BenchServer, sleep, startBenchServer } from './instance.ts';
import { option } from './options.ts';
import { printFigures, runMain, samplePeak } from './support/report.ts';

const DB = option('db', 'sqlite');
const FORMS = Number(option('forms', '500'));
const RATE = Number(option('rate', '100'));
const FORM_EVERY = 5;

const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const ev = (domainType: string, domainId: string, body: Record<string, unknown>) => ({ event_type: 'create', domainType, domainId, body });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

async function main(): Promise<void> {
  let server: BenchServer | null = null;
  try {
    // The server's zone is UTC: `when` (a local time) is read as UTC.
    server = await startBenchServer({ db: DB, label: 'playbooks', env: { TZ: 'UTC' } });
    const { base } = server;
    const { auth, json, appId } = await server.signIn('Playbook bench');
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}/api/v1.7/app/${appId}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
      const answer = (await res.json()) as { status: number; data: { id: string } };
      if (answer.status !== 1) throw new Error(`${path}: ${JSON.stringify(answer)}`);
      return answer.data;
    };
    for (let i = 0; i < FORMS; i += 1000)
      await post(
        '/events',
        Array.from({ length: Math.min(1000, FORMS - i) }, (_, j) =>
          ev('Customer', `p${i + j}`, { name: `Lead ${i + j}`, email: `l${i + j}@example.com` }),
        ),
      );
    const playbook = await post('/playbooks', {
      name: 'Form filled in',
      trigger: { kind: 'form_submitted', conditions: {} },
      actions: [
        { type: 'create_task', title: 'Call back about the form', kind: 'call', dueInHours: 2 },
        { type: 'notify', to: 'owner', channels: ['inbox'] },
      ],
    });
    const records = FORMS * FORM_EVERY;
    const started = performance.now();
    const sampler = samplePeak(server.rss);
    for (let n = 0; n < records; n += 1) {
      const due = started + (n * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const form = n % FORM_EVERY === 0;
      const customer = form ? `p${n / FORM_EVERY}` : `p${(n * 7919) % FORMS}`;
      const body = form
        ? { customerId: customer, action: 'submit_form', when: fmt(Date.now()), content: JSON.stringify({ form: 'Contact us' }) }
        : {
            customerId: customer,
            action: 'access_site',
            when: fmt(Date.now()),
            content: JSON.stringify({ web_access_log_id: `w${n}`, title: `Page ${n % 13}`, site: 'example.com' }),
          };
      await post('/events', [ev('BehaviourLog', `r${n}`, body)]);
    }
    const sentSeconds = (performance.now() - started) / 1000;
    // Every run, read back through the runs API (newest first, 100 a page).
    const lags: number[] = [];
    const deadline = performance.now() + 120_000;
    while (lags.length < FORMS && performance.now() < deadline) {
      lags.length = 0;
      for (let start = 0; ; start += 100) {
        const res = await fetch(`${base}/api/v1.7/app/${appId}/playbook/${playbook.id}/runs?start_index=${start}&count=100`, {
          headers: auth,
        });
        const page = ((await res.json()) as { data: { lagMs: number }[] }).data;
        for (const r of page) lags.push(r.lagMs);
        if (page.length < 100) break;
      }
      if (lags.length < FORMS) await sleep(250);
    }
    sampler.stop();
    const sorted = [...lags].sort((a, b) => a - b);
    printFigures(DB, {
      records,
      recordsPerSec: Math.round(records / sentSeconds),
      forms: FORMS,
      runs: lags.length,
      p50ms: percentile(sorted, 50),
      p95ms: percentile(sorted, 95),
      maxMs: sorted[sorted.length - 1] ?? 0,
      peakRssMB: Math.round(sampler.peak() / 1e6),
    });
  } finally {
    await server?.stop();
  }
}

runMain(main);
