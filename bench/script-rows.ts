/**
 * The rows of `npm run bench` (bench/run.ts) that come from the bench scripts with a server (or an
 * in-process app) of their own: each runs its script as a child process (bench/support/child.ts), on
 * a fresh database of the run's dialect, and turns the figures it prints into the row.
 */
import { LOADS } from './scenarios.ts';
import { runScript } from './support/child.ts';

export interface RowOptions {
  db: 'sqlite' | 'postgres';
  /** `--quick`: the smaller sizes. */
  quick: boolean;
  /** Seconds per scenario (`--duration`). */
  duration: number;
}

/**
 * Webhook delivery throughput: bench/events.ts on its own fresh database of the same dialect (one
 * relay draining committed events to a local receiver in signed batches), run after the HTTP
 * scenarios so it does not share the cores with them.
 */
export async function webhookDelivery({ db, quick }: RowOptions): Promise<Record<string, unknown>[]> {
  const r = await runScript<{
    createToReceipt: { p50ms: number; p99ms: number };
    createToLiveStream: { p50ms: number; p95ms: number; p99ms: number };
    relayThroughput: { eventsPerSecond: number };
  }>('bench/events.ts', ['--db', db, '--events', quick ? '5000' : '20000']);
  return [
    {
      scenario: 'webhook delivery (events/s; p50/p99 create→receipt)',
      reqPerSec: r.relayThroughput.eventsPerSecond,
      p50ms: r.createToReceipt.p50ms,
      p99ms: r.createToReceipt.p99ms,
      target: 'report',
      met: '-',
    },
    {
      scenario: `live stream (p50/p99 create→owner's stream; p95 ${r.createToLiveStream.p95ms} ms)`,
      reqPerSec: null,
      p50ms: r.createToLiveStream.p50ms,
      p99ms: r.createToLiveStream.p99ms,
      target: 'p95 ≤ 2000 ms',
      met: r.createToLiveStream.p95ms <= 2000 ? 'yes' : 'no',
    },
  ];
}

/**
 * Page rendering: bench/render.ts (its own fresh database of the same dialect and the real server)
 * uploads the 100-page deck and times its first page and its full render, with the renderer's
 * thread not yet started (the figure reported here; the started one is in `renderStarted`).
 */
export async function pdfRender({ db }: RowOptions): Promise<Record<string, unknown>> {
  type Round = { firstPageMs: number; fullRenderMs: number; pagesPerSecond: number; peakRssMB: number };
  const r = await runScript<{ rendererNotStarted: Round; rendererStarted: Round }>('bench/render.ts', ['--db', db]);
  const cold = r.rendererNotStarted;
  return {
    scenario: 'PDF render pages/s (100-page deck: first page, full render)',
    reqPerSec: cold.pagesPerSecond,
    firstPageMs: cold.firstPageMs,
    fullRenderMs: cold.fullRenderMs,
    renderStarted: r.rendererStarted,
    target: 'first page ≤ 2000 ms, all ≤ 30000 ms',
    met: cold.firstPageMs <= 2000 && cold.fullRenderMs <= 30_000 ? 'yes' : 'NO',
    peakRssMB: cold.peakRssMB,
  };
}

/**
 * Watermarked page images: bench/watermark.ts (its own fresh database of the same dialect and the real
 * server) asks for the 3-page deck's 1600 px images of a plain link and of a watermarked one in turns,
 * one at a time (each watermarked image drawn by the page renderer's child), then 64 watermarked ones
 * at once, then the watermarked download.
 */
export async function watermarkFigures({ db, quick }: RowOptions): Promise<Record<string, unknown>[]> {
  type Latency = { p50ms: number; p99ms: number; images: number };
  const r = await runScript<{
    plainPage: Latency;
    watermarkedPage: Latency;
    burst: { requests: number; drawn: number; overloaded: number; other: number; slowestMs: number; peakRssMB: number };
    download: { pages: number; msPerPage: number };
  }>('bench/watermark.ts', ['--db', db, '--images', quick ? '30' : '150']);
  return [
    {
      scenario: `plain page image, 1600 px (ms per image, ${r.plainPage.images} one at a time)`,
      ...r.plainPage,
      target: 'report',
      met: '-',
    },
    {
      scenario: `watermarked page image, 1600 px (ms per image drawn, ${r.watermarkedPage.images} one at a time)`,
      ...r.watermarkedPage,
      target: 'report',
      met: '-',
    },
    {
      scenario: `watermarked burst (${r.burst.requests} at once: ${r.burst.drawn} drawn, ${r.burst.overloaded} 503; slowest ms; RSS with the renderer)`,
      maxMs: r.burst.slowestMs,
      peakRssMB: r.burst.peakRssMB,
      target: 'no failure but 503, RSS ≤ 512 MB',
      met: r.burst.other === 0 && r.burst.drawn > 0 && r.burst.peakRssMB <= 512 ? 'yes' : 'NO',
    },
    {
      scenario: `watermarked download (PDF of ${r.download.pages} pages: ms per page)`,
      p50ms: r.download.msPerPage,
      target: 'report',
      met: '-',
    },
  ];
}

/**
 * Customer import and export: bench/dataops.ts (its own fresh database of the same dialect and the
 * real server with the relay running) imports a generated CSV (1,000,000 rows, 100,000 with --quick;
 * 5 % duplicates, 1 % invalid) as a job and exports every customer as CSV.
 */
export async function dataOps({ db, quick }: RowOptions): Promise<Record<string, unknown>[]> {
  type Figures = { rowsPerSecond: number; peakRssMB: number };
  const r = await runScript<{
    rows: number;
    import: Figures & { totalMs: number };
    export: Figures & { ms: number; rows: number };
  }>('bench/dataops.ts', ['--db', db, ...(quick ? ['--quick'] : [])]);
  const target = db === 'postgres' ? 5000 : 10_000;
  return [
    {
      scenario: `import (rows/s, ${r.rows} rows, 5 % duplicates, 1 % invalid, relay running)`,
      reqPerSec: r.import.rowsPerSecond,
      totalMs: r.import.totalMs,
      target: `≥ ${target} rows/s, RSS ≤ 250 MB`,
      met: r.import.rowsPerSecond >= target && r.import.peakRssMB <= 250 ? 'yes' : 'NO',
      peakRssMB: r.import.peakRssMB,
    },
    {
      scenario: `export (rows/s, ${r.export.rows} rows, CSV)`,
      reqPerSec: r.export.rowsPerSecond,
      totalMs: r.export.ms,
      target: 'report',
      met: '-',
      peakRssMB: r.export.peakRssMB,
    },
  ];
}

/**
 * Customer merge: bench/merge.ts (its own fresh database of the same dialect) merges customers with
 * 100,000 history records each: the merge's commit latency, and the background move of the history.
 */
export async function mergeFigures({ db }: RowOptions): Promise<Record<string, unknown>> {
  const r = await runScript<{
    commitMs: number[];
    commitMedianMs: number;
    commitMaxMs: number;
    backgroundMoveMs: number[];
    backgroundRecordsPerSecond: number;
  }>('bench/merge.ts', ['--db', db]);
  return {
    scenario: 'merge (a customer with 100,000 history records: commit latency)',
    p50ms: r.commitMedianMs,
    maxMs: r.commitMaxMs,
    commitMs: r.commitMs,
    backgroundMoveMs: r.backgroundMoveMs,
    backgroundRecordsPerSec: r.backgroundRecordsPerSecond,
    target: 'commit ≤ 200 ms',
    met: r.commitMaxMs <= 200 ? 'yes' : 'NO',
  };
}

/**
 * Reading analytics: bench/analytics.ts (its own fresh database of the same dialect, the app
 * in-process) asks for the analytics of a link with 100,000 views (10,000 with --quick): the answer's time.
 */
export async function analyticsFigures({ db, quick }: RowOptions): Promise<Record<string, unknown>> {
  type Timing = { p50ms: number; p95ms: number; maxMs: number };
  const r = await runScript<{ views: number; analytics: Timing; oneVersion: Timing; csv: Timing }>('bench/analytics.ts', [
    '--db',
    db,
    ...(quick ? ['--views', '10000'] : []),
  ]);
  return {
    scenario: `link analytics (a link with ${r.views.toLocaleString('en-US')} views; CSV of every viewer ${Math.round(r.csv.p50ms)} ms)`,
    p50ms: r.analytics.p50ms,
    p95ms: r.analytics.p95ms,
    oneVersionP50ms: r.oneVersion.p50ms,
    target: 'p95 ≤ 500 ms',
    met: r.analytics.p95ms <= 500 ? 'yes' : 'NO',
  };
}

/**
 * Sequence enrolment: bench/sequences.ts (its own fresh database of the same dialect and the real
 * server) enrols every customer of a 100,000-customer project in one sequence as one job (whatever the
 * dataset's size: the figure is about the job): the job's time from the request to done.
 */
export async function sequenceEnrolFigures({ db }: RowOptions): Promise<Record<string, unknown>> {
  const r = await runScript<{
    customers: number;
    enrolled: number;
    requestMs: number;
    seconds: number;
    enrolmentsPerSec: number;
    peakRssMB: number;
  }>('bench/sequences.ts', ['--db', db, '--customers', '100000']);
  return {
    scenario: `sequence enrol 100k (${r.customers} customers, all matching, one job)`,
    seconds: r.seconds,
    requestMs: r.requestMs,
    enrolmentsPerSec: r.enrolmentsPerSec,
    enrolled: r.enrolled,
    peakRssMB: r.peakRssMB,
    target: 'job ≤ 60 s',
    met: r.enrolled === r.customers && r.seconds <= 60 ? 'yes' : 'NO',
  };
}

/**
 * The share-link viewer: bench/viewer.ts (its own fresh database of the same dialect and the real
 * server) drives the viewer page at 64 connections and beacons at 32, one view per connection, and the
 * site snippet's collect calls at 32, one site visitor per connection.
 */
export async function viewerFigures({ db, duration }: RowOptions): Promise<Record<string, unknown>[]> {
  type Figures = { reqPerSec: number; p50ms: number; p99ms: number; failures: number; peakRssMB: number };
  const r = await runScript<{ viewerPage: Figures; beacons: Figures; collect: Figures }>('bench/viewer.ts', [
    '--db',
    db,
    '--duration',
    String(duration),
  ]);
  // Beacons are single small durable writes: the single-record ingestion targets.
  const ingestion = LOADS.find((l) => l.name === 'single-record ingestion');
  const rate = ingestion ? ingestion.rate[db === 'sqlite' ? 0 : 1] : 0;
  const p99 = ingestion ? ingestion.p99All[db === 'sqlite' ? 0 : 1] : 0;
  return [
    {
      scenario: 'viewer page (GET /l/{token}, 64 connections; writes nothing)',
      ...r.viewerPage,
      target: 'p99 ≤ 20 ms',
      met: r.viewerPage.p99ms <= 20 && r.viewerPage.failures === 0 ? 'yes' : 'NO',
    },
    {
      scenario: 'beacons (32 connections, one view each; durable writes)',
      ...r.beacons,
      target: `≥ ${rate}/s, p99 ≤ ${p99} ms`,
      met: r.beacons.reqPerSec >= rate && r.beacons.p99ms <= p99 && r.beacons.failures === 0 ? 'yes' : 'NO',
    },
    {
      // The site snippet (docs/site-tracking.md): three records a call, half the visitors identified.
      scenario: 'collect (POST /t/collect, 32 connections, one site visitor each; durable writes)',
      ...r.collect,
      target: `≥ ${rate}/s, p99 ≤ ${p99} ms`,
      met: r.collect.reqPerSec >= rate && r.collect.p99ms <= p99 && r.collect.failures === 0 ? 'yes' : 'NO',
    },
  ];
}

/**
 * Data rooms: bench/rooms.ts (its own fresh database of the same dialect and the real server) opens a
 * room link of three documents, its room's page and a document's page, at 64 connections.
 */
export async function roomFigures({ db, duration }: RowOptions): Promise<Record<string, unknown>[]> {
  type Figures = { reqPerSec: number; p50ms: number; p99ms: number; failures: number; peakRssMB: number };
  const r = await runScript<{ roomOpen: Figures; roomDocument: Figures }>('bench/rooms.ts', ['--db', db, '--duration', String(duration)]);
  const met = (f: Figures) => (f.p99ms <= 20 && f.failures === 0 ? 'yes' : 'NO');
  return [
    {
      scenario: 'room open (GET /l/{token} of a room link, 64 connections; writes nothing)',
      ...r.roomOpen,
      target: 'p99 ≤ 20 ms',
      met: met(r.roomOpen),
    },
    {
      scenario: 'room document (GET /l/{token}/doc/{file-id}, 64 connections; checked against the room)',
      ...r.roomDocument,
      target: 'p99 ≤ 20 ms',
      met: met(r.roomDocument),
    },
  ];
}

/**
 * Sequence steps: bench/sequence-steps.ts (its own fresh database of the same dialect and the real server)
 * enrols customers in a sequence whose first step is an e-mail and reports steps sent per second,
 * from the enrolment call to the last mail accepted by a local SMTP server.
 */
export async function sequenceStepFigures({ db, quick }: RowOptions): Promise<Record<string, unknown>> {
  const r = await runScript<{
    customers: number;
    received: number;
    seconds: number;
    stepsPerSec: number;
    peakRssMB: number;
  }>('bench/sequence-steps.ts', ['--db', db, '--customers', quick ? '2000' : '10000']);
  return {
    scenario: 'sequence steps (e-mail steps through the runner and the campaign sender, local SMTP)',
    stepsPerSec: r.stepsPerSec,
    customers: r.customers,
    seconds: r.seconds,
    failures: r.customers - r.received,
    peakRssMB: r.peakRssMB,
    target: 'report',
  };
}

/**
 * Campaign mail: bench/mail.ts (its own fresh database of the same dialect and the real server)
 * sends one campaign to a local SMTP server and reports mails per second from create to done.
 */
export async function mailFigures({ db, quick }: RowOptions): Promise<Record<string, unknown>> {
  const r = await runScript<{
    recipients: number;
    sent: number;
    seconds: number;
    mailsPerSec: number;
    peakRssMB: number;
  }>('bench/mail.ts', ['--db', db, '--recipients', quick ? '2000' : '10000']);
  return {
    scenario: 'campaign mail (one campaign to a local SMTP server, 5 pooled connections)',
    mailsPerSec: r.mailsPerSec,
    recipients: r.recipients,
    seconds: r.seconds,
    failures: r.recipients - r.sent,
    peakRssMB: r.peakRssMB,
    target: '≥ 200 mails/s',
    met: r.mailsPerSec >= 200 && r.sent === r.recipients ? 'yes' : 'NO',
  };
}

/**
 * Playbook lag: bench/playbooks.ts (its own fresh database of the same dialect and the real server)
 * sends behaviour records at a steady pace, one in five a form that a playbook acts on, and reports
 * each run's time from the record to the run with its actions (the runs API's `lagMs`).
 */
export async function playbookLag({ db, quick }: RowOptions): Promise<Record<string, unknown>> {
  const r = await runScript<{
    records: number;
    recordsPerSec: number;
    forms: number;
    runs: number;
    p50ms: number;
    p95ms: number;
    maxMs: number;
    peakRssMB: number;
  }>('bench/playbooks.ts', ['--db', db, '--forms', quick ? '200' : '1000']);
  return {
    scenario: `playbook lag (record to action; ${r.recordsPerSec} records/s, ${r.forms} forms acted on)`,
    p50ms: r.p50ms,
    p95ms: r.p95ms,
    maxMs: r.maxMs,
    failures: r.forms - r.runs,
    peakRssMB: r.peakRssMB,
    target: 'p95 ≤ 2000 ms',
    met: r.p95ms <= 2000 && r.runs === r.forms ? 'yes' : 'NO',
  };
}
