import cluster from 'node:cluster';
import type * as PromClient from 'prom-client';
import type { DeliveryResult, Observer } from '../context.ts';
import type { DatabaseHandle, DatabaseObserver } from '../db/index.ts';
import { type OutboxBacklog, outboxBacklog } from '../events/outbox.ts';
import { askPrimary } from './cluster.ts';

/** The route label of a request that matched no route (404s of any path: one series, whatever the URL). */
export const UNMATCHED_ROUTE = '(unmatched)';

/** A database that has not answered the backlog read by then counts as down for this scrape. */
const BACKLOG_TIMEOUT_MS = 2000;

/** prom-client, loaded by `Metrics.load` only when metrics are on (a process without them never loads it). */
let prom: typeof PromClient;

const SECONDS_FAST = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const SECONDS_HTTP = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The process's metrics (prom-client, a registry of its own): what services and the database
 * report through the Observer interfaces, what the HTTP app times, and gauges read when scraped
 * (the outbox backlog, the database pools and queues). Names and meanings: docs/operations.md.
 *
 * Under WORKERS > 1 each worker keeps its own and the primary adds them up (AggregatorRegistry):
 * counters and histograms are summed; gauges of the shared database (backlog) take the largest
 * worker's value, gauges of a worker's own pools and queue are summed.
 */
export class Metrics implements Observer, DatabaseObserver {
  readonly registry: PromClient.Registry = new prom.Registry();
  private database: DatabaseHandle | null = null;
  private backlog: Promise<OutboxBacklog | null> | null = null;

  private readonly requests = new prom.Counter({
    name: 'rapport_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new prom.Histogram({
    name: 'rapport_http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being sent, by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: SECONDS_HTTP,
    registers: [this.registry],
  });
  private readonly ingestBatches = new prom.Counter({
    name: 'rapport_ingest_batches_total',
    help: 'Ingestion batches answered: result "accepted", or the error code they were refused with',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly ingestRecords = new prom.Counter({
    name: 'rapport_ingest_records_total',
    help: 'Records of accepted ingestion batches: "accepted" (written) or "duplicate" (already stored, skipped)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly groups = new prom.Counter({
    name: 'rapport_write_groups_total',
    help: 'Group commits: transactions that wrote the small writes of several requests together',
    registers: [this.registry],
  });
  private readonly groupRecords = new prom.Histogram({
    name: 'rapport_write_group_records',
    help: 'Records written by one group commit',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });
  private readonly groupSeconds = new prom.Histogram({
    name: 'rapport_write_group_duration_seconds',
    help: 'Time of one group commit transaction',
    buckets: SECONDS_FAST,
    registers: [this.registry],
  });
  private readonly refused = new prom.Counter({
    name: 'rapport_write_queue_refused_total',
    help: 'Requests refused with 503 overloaded because the group commit queue was full (WRITE_QUEUE_RECORDS)',
    registers: [this.registry],
  });
  private readonly siteQuotaRefusals = new prom.Counter({
    name: 'rapport_site_quota_refused_total',
    help: "Site collect calls refused with quota_exceeded: the project's daily quota of anonymous records (SITE_ANONYMOUS_DAILY_CAP) was spent",
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  private readonly deliveries = new prom.Counter({
    name: 'rapport_webhook_deliveries_total',
    help: 'Webhook delivery attempts by result: delivered, failed (retried later), dead (given up), disabled (410 Gone)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly deliverySeconds = new prom.Histogram({
    name: 'rapport_webhook_delivery_duration_seconds',
    help: 'Time of one webhook delivery attempt (the receiver answering, or the timeout)',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly analyzes = new prom.Counter({
    name: 'rapport_planner_statistics_total',
    help: 'ANALYZE runs the write path started on PostgreSQL to keep the planner statistics current, by table and outcome',
    labelNames: ['table', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly jobTicks = new prom.Counter({
    name: 'rapport_job_ticks_total',
    help: 'Ticks of the background jobs, by job and outcome: worked, idle (nothing was due) or failed (retried after a backoff)',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly jobSeconds = new prom.Histogram({
    name: 'rapport_job_tick_duration_seconds',
    help: 'Time of one tick of a background job, by job',
    labelNames: ['job'] as const,
    buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10, 60],
    registers: [this.registry],
  });
  private readonly statementSeconds = new prom.Histogram({
    name: 'rapport_db_statement_duration_seconds',
    help: 'Time of database statements: "query" (through Kysely: writes and transactions), "read" (prepared reads)',
    labelNames: ['kind'] as const,
    buckets: SECONDS_FAST,
    registers: [this.registry],
  });
  /** Children with their labels bound once: a statement costs one observe, no label lookup. */
  private readonly statementKinds = { query: this.statementSeconds.labels('query'), read: this.statementSeconds.labels('read') };

  /** Loads prom-client (once per process) and makes the metrics. */
  static async load(options: { processMetrics: boolean }): Promise<Metrics> {
    prom ??= await import('prom-client');
    return new Metrics(options);
  }

  private constructor(options: { processMetrics: boolean }) {
    // Inside collect(), `this` is the gauge.
    const backlog = () => this.readBacklog();
    const stats = () => this.database?.stats();
    const backlogGauge = (name: string, help: string, pick: (b: OutboxBacklog, now: number) => number) =>
      new prom.Gauge({
        name,
        help,
        aggregator: 'max',
        registers: [this.registry],
        async collect() {
          const b = await backlog();
          if (b) this.set(pick(b, Date.now()));
          else this.reset();
        },
      });
    const age = (at: number | null, now: number) => (at === null ? 0 : Math.max(0, (now - at) / 1000));
    backlogGauge('rapport_outbox_pending_events', 'Committed events the relay has not taken yet', (b) => b.pendingEvents);
    backlogGauge('rapport_outbox_oldest_pending_age_seconds', 'Age of the oldest event the relay has not taken (0: none)', (b, now) =>
      age(b.oldestPendingAt, now),
    );
    backlogGauge('rapport_webhook_deliveries_pending', 'Webhook deliveries waiting to be sent or retried', (b) => b.pendingDeliveries);
    backlogGauge('rapport_webhook_oldest_pending_delivery_age_seconds', 'Age of the oldest open webhook delivery (0: none)', (b, now) =>
      age(b.oldestDeliveryAt, now),
    );
    backlogGauge(
      'rapport_webhook_deliveries_dead',
      'Webhook deliveries given up on (dead letters, kept for replay)',
      (b) => b.deadDeliveries,
    );
    new prom.Gauge({
      name: 'rapport_database_up',
      help: '1 when the database answered the metrics read of this scrape, else 0',
      aggregator: 'min',
      registers: [this.registry],
      async collect() {
        this.set((await backlog()) ? 1 : 0);
      },
    });
    new prom.Gauge({
      name: 'rapport_write_queue_records',
      help: 'Records waiting for their group commit',
      registers: [this.registry],
      collect() {
        this.set(stats()?.queuedRecords ?? 0);
      },
    });
    const poolGauge = (name: string, help: string, pick: (p: { max: number; total: number; idle: number; waiting: number }) => number) =>
      new prom.Gauge({
        name,
        help,
        labelNames: ['pool'] as const,
        registers: [this.registry],
        collect() {
          for (const p of stats()?.pools ?? []) this.set({ pool: p.name }, pick(p));
        },
      });
    poolGauge('rapport_db_pool_max_connections', 'PostgreSQL: connections a pool may open', (p) => p.max);
    poolGauge('rapport_db_pool_connections', 'PostgreSQL: connections a pool has open', (p) => p.total);
    poolGauge('rapport_db_pool_idle_connections', 'PostgreSQL: open connections of a pool not in use', (p) => p.idle);
    poolGauge('rapport_db_pool_waiting_clients', 'PostgreSQL: callers waiting for a connection of a pool', (p) => p.waiting);
    if (options.processMetrics) prom.collectDefaultMetrics({ register: this.registry });
    if (cluster.isWorker) {
      // The primary asks each worker for its metrics and adds them up (prom-client's IPC messages,
      // answered by the listener the AggregatorRegistry installs in a worker).
      new prom.AggregatorRegistry();
      prom.AggregatorRegistry.setRegistries([this.registry]);
    }
  }

  /** The database whose pools, queues and outbox the gauges read (set once, by the runtime). */
  collectFrom(database: DatabaseHandle): void {
    this.database = database;
  }

  /** The text a scrape gets: this process's metrics, or under WORKERS > 1 every worker's, added up by the primary. */
  text(): Promise<string> {
    return cluster.isWorker ? askPrimary() : this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status });
    this.requestSeconds.observe({ method, route }, seconds);
  }

  ingested(outcome: { accepted: number; duplicates: number } | { refused: string }): void {
    if ('refused' in outcome) {
      this.ingestBatches.inc({ result: outcome.refused });
      return;
    }
    this.ingestBatches.inc({ result: 'accepted' });
    this.ingestRecords.inc({ result: 'accepted' }, outcome.accepted);
    this.ingestRecords.inc({ result: 'duplicate' }, outcome.duplicates);
  }

  webhookDelivery(result: DeliveryResult, seconds: number): void {
    this.deliveries.inc({ result });
    this.deliverySeconds.observe(seconds);
  }

  jobTicked(job: string, outcome: 'worked' | 'idle' | 'failed', seconds: number): void {
    this.jobTicks.inc({ job, outcome });
    this.jobSeconds.observe({ job }, seconds);
  }

  siteQuotaRefused(appId: string): void {
    this.siteQuotaRefusals.inc({ app_id: appId });
  }

  statement(kind: 'query' | 'read', seconds: number): void {
    this.statementKinds[kind].observe(seconds);
  }

  groupCommitted(_jobs: number, records: number, seconds: number): void {
    this.groups.inc();
    this.groupRecords.observe(records);
    this.groupSeconds.observe(seconds);
  }

  groupRefused(): void {
    this.refused.inc();
  }

  statisticsGathered(table: string, outcome: 'ok' | 'failed'): void {
    this.analyzes.inc({ table, outcome });
  }

  /**
   * The outbox backlog, read once per scrape: the gauges of one scrape are collected together and
   * share the read under way (null when the database did not answer in time).
   */
  private readBacklog(): Promise<OutboxBacklog | null> {
    const database = this.database;
    if (!database) return Promise.resolve(null);
    if (this.backlog === null) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), BACKLOG_TIMEOUT_MS);
        timer.unref();
      });
      const figures = outboxBacklog(database.db).catch(() => null);
      this.backlog = Promise.race([figures, late]).finally(() => {
        clearTimeout(timer);
        this.backlog = null;
      });
    }
    return this.backlog;
  }
}
