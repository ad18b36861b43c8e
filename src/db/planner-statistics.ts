import type pg from 'pg';
import type { RowsWritten } from './change-epoch.ts';

/**
 * PostgreSQL plans every statement from its tables' statistics, which autovacuum gathers on its own
 * schedule (a minute or more after the writes, once 10 % of a table changed). Right after a bulk
 * load a table's statistics still describe it empty, and a plan made for an empty table (a
 * sequential scan, a nested loop over "one" row) answers a behaviour page in seconds instead of
 * milliseconds until autovacuum comes by.
 *
 * So the write path keeps them current: every commit reports how many rows it wrote per table
 * (change-epoch.ts), and once a table's rows written since its last ANALYZE reach
 * `max(minRows, fraction × its rows then)`, this runs `ANALYZE <table>` in the background, one table
 * at a time, on a connection of the write pool. A 200,000-row load thus gathers statistics a dozen
 * times per table, each a sample of at most 30,000 rows (tens of milliseconds); steady traffic on a
 * large table triggers it about as often as autovacuum would. ANALYZE takes a lock that writes and
 * reads do not wait for. A failure is logged by the caller and retried at the next threshold.
 */
export interface PlannerStatisticsOptions {
  /** Rows written to a table before its first ANALYZE by this process. */
  minRows: number;
  /** Growth, as a share of the table's rows at its last ANALYZE, that triggers the next. */
  fraction: number;
  /** Told of every ANALYZE run, or its failure. */
  onAnalyze?: (table: string, outcome: 'ok' | 'failed', error?: unknown) => void;
}

export const PLANNER_STATISTICS: PlannerStatisticsOptions = { minRows: 1000, fraction: 0.5 };

interface TableState {
  /** Rows written since the last ANALYZE this process ran (or asked for). */
  written: number;
  /** The table's rows at that ANALYZE, as the planner then saw them. */
  rows: number;
}

export class PlannerStatistics {
  private readonly tables = new Map<string, TableState>();
  private readonly queue: string[] = [];
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PlannerStatisticsOptions = PLANNER_STATISTICS,
  ) {}

  /** Called by the change tracking with what a commit wrote. */
  readonly written: RowsWritten = (table, n) => {
    if (this.closed) return;
    let state = this.tables.get(table);
    if (state === undefined) this.tables.set(table, (state = { written: 0, rows: 0 }));
    state.written += n;
    if (state.written < Math.max(this.options.minRows, this.options.fraction * state.rows) || this.queue.includes(table)) return;
    this.queue.push(table);
    if (this.running === null) this.running = this.drain();
  };

  private async drain(): Promise<void> {
    try {
      for (let table = this.queue.shift(); table !== undefined && !this.closed; table = this.queue.shift()) await this.analyze(table);
    } finally {
      this.running = null;
    }
  }

  private async analyze(table: string): Promise<void> {
    const state = this.tables.get(table);
    if (state === undefined) return;
    const writtenBefore = state.written;
    try {
      // Table names come from the statements' own nodes (code), never from input; quoted anyway.
      await this.pool.query(`analyze "${table.replaceAll('"', '""')}"`);
      const r = await this.pool.query<{ rows: number }>(
        'select greatest(reltuples, 0)::float8 as rows from pg_class where oid = $1::regclass',
        [`"${table.replaceAll('"', '""')}"`],
      );
      state.rows = Number(r.rows[0]?.rows ?? 0);
      // Rows written while ANALYZE ran may not be in its sample: they count towards the next.
      state.written = Math.max(0, state.written - writtenBefore);
      this.options.onAnalyze?.(table, 'ok');
    } catch (error) {
      this.options.onAnalyze?.(table, 'failed', error);
    }
  }

  /** Resolves once no ANALYZE is queued or running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  /** Stops taking work and waits for a running ANALYZE to end. */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    await this.idle();
  }
}
