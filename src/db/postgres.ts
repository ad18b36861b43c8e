import { type Driver, Kysely, PostgresDialect, type PostgresDialectConfig, PostgresDriver, type SqlBool, sql } from 'kysely';
import pg from 'pg';
import { AppIdCheckedClient, startCheckingAppIds } from './app-id-check.ts';
import { ChangeTrackingDriver, type ChangeTopic, TOPICS } from './change-epoch.ts';
import { cacheRegistry } from './cache.ts';
import { type CommitGroup, type CommitGroupOptions, GROUP_COMMIT, createCommitGroup, durableCommits } from './group-commit.ts';
import { ping } from './sql.ts';
import { pendingMigrations } from './migrate.ts';
import { type DatabaseObserver, NO_DATABASE_OBSERVER, statementLog, timedReader } from './observer.ts';
import type { DialectFeatures } from './dialect.ts';
import type { DatabaseHandle } from './handle.ts';
import { poolReader } from './pg-reader.ts';
import { PLANNER_STATISTICS, PlannerStatistics, type PlannerStatisticsOptions } from './planner-statistics.ts';
import { executorReader } from './prepared.ts';
import type { Database } from './schema.ts';

// BIGINT (epoch milliseconds, counters) arrives as a JS number: every value we store fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export const postgresFeatures: DialectFeatures = {
  name: 'postgres',
  skipLocked: true,
  maxParameters: 65535,
  arrayParameters: true,
  // A select, so that the change tracking does not take it for a write.
  transactionLock: async (trx, key, mode = 'exclusive') => {
    const fn = sql.raw(mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock');
    if (typeof key === 'number') {
      await trx.selectNoFrom(sql`${fn}(${key}::int8)`.as('locked')).execute();
      return;
    }
    if (key.length === 0) return;
    // The sorted subquery hands the keys over in order; the volatile lock function runs row by row.
    await trx
      .selectFrom(sql<{ k: number }>`(select distinct unnest(${[...key]}::int8[]) as k order by k)`.as('keys'))
      .select(sql`${fn}(keys.k)`.as('locked'))
      .execute();
  },
  // Sub-select of unnest rather than `= any($1)`: see bulk.ts anyOf (planned as index probes).
  listParameter: (column, list, type) => sql<SqlBool>`${sql.ref(column)} in (select unnest(${list}::${sql.raw(type)}[]))`,
  projectIs: (column, appId) => sql<SqlBool>`${sql.ref(column)} = ${appId}`,
  rowsAsJson: (subquery, columns) =>
    sql`(select coalesce(json_agg(json_build_array(${sql.join(columns.map((c) => sql.ref(`j.${c}`)))})), '[]'::json) from (${subquery}) as j)`,
};

/** The channel the change-notification triggers (migration 007, which spells it out) notify on commit, the topic as payload. */
export const CHANGE_CHANNEL = 'rapport_changes';

/**
 * The change epochs on PostgreSQL. This process bumps a topic itself once its own write to one of
 * the topic's tables is committed (ChangeTrackingDriver), so its next request never reads a stale
 * cache; other processes' commits arrive as notifications from the triggers. While the listening
 * connection is down every epoch is null: nothing is cached, so a missed notification cannot leave
 * a stale entry.
 */
class ChangeWatch {
  private readonly epochs = new Map<string, number>(TOPICS.map((t) => [t, 0]));
  private connected = false;
  private closed = false;
  private client: pg.Client | null = null;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly url: string) {}

  bump(topics: Iterable<string>): void {
    for (const t of topics) this.epochs.set(t, (this.epochs.get(t) ?? 0) + 1);
  }

  current = (topic: ChangeTopic): number | null => (this.connected ? (this.epochs.get(topic) ?? null) : null);

  start(): void {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url });
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.connected = false;
      this.client = null;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (!this.closed) this.retry = setTimeout(() => this.start(), 1000).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    // An unknown payload (another version's topic) bumps everything: never too few.
    client.on('notification', (n) => this.bump(n.payload && this.epochs.has(n.payload) ? [n.payload] : TOPICS));
    client
      .connect()
      .then(() => client.query(`listen ${CHANGE_CHANNEL}`))
      .then(() => {
        // Whatever changed while nobody listened: start from fresh epochs.
        this.bump(TOPICS);
        if (this.client === client) this.connected = true;
      })
      .catch(lost);
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.connected = false;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }
}

class TrackingPostgresDialect extends PostgresDialect {
  constructor(
    private readonly config: PostgresDialectConfig,
    private readonly watch: ChangeWatch,
    private readonly statistics: PlannerStatistics,
  ) {
    super(config);
  }
  override createDriver(): Driver {
    return new ChangeTrackingDriver(new PostgresDriver(this.config), (topics) => this.watch.bump(topics), this.statistics.written);
  }
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres (unparseable URL)';
  }
}

export function openPostgres(
  url: string,
  options: {
    poolSize?: number;
    readPoolSize?: number;
    groups?: Partial<CommitGroupOptions>;
    observer?: DatabaseObserver;
    /** Check that every statement names the project of each project table it touches (app-id-check.ts; tests). */
    appIdCheck?: boolean;
    /** When the write path gathers the planner's statistics (planner-statistics.ts). */
    statistics?: Partial<PlannerStatisticsOptions>;
  } = {},
): DatabaseHandle {
  const poolSize = options.poolSize ?? 10;
  const readPoolSize = options.readPoolSize ?? 6;
  const observer = options.observer ?? NO_DATABASE_OBSERVER;
  // Two pools: prepared reads (the hot reads of every page) never wait for a connection behind
  // transactions, whose connections are held across round trips and commits.
  // With the app_id check on, every connection of both pools checks each statement before sending it.
  if (options.appIdCheck) startCheckingAppIds();
  const Client = options.appIdCheck ? { Client: AppIdCheckedClient } : {};
  const pool = new pg.Pool({ connectionString: url, max: poolSize, ...Client });
  const readPool = new pg.Pool({ connectionString: url, max: readPoolSize, ...Client });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  readPool.on('error', () => {});
  const watch = new ChangeWatch(url);
  watch.start();
  const statistics = new PlannerStatistics(pool, {
    ...PLANNER_STATISTICS,
    ...options.statistics,
    onAnalyze: (table, outcome) => observer.statisticsGathered(table, outcome),
  });
  const db = new Kysely<Database>({ dialect: new TrackingPostgresDialect({ pool }, watch, statistics), log: statementLog(observer) });
  const groups: CommitGroup<never>[] = [];
  const poolStats = (name: string, p: pg.Pool, max: number) => ({
    name,
    max,
    total: p.totalCount,
    idle: p.idleCount,
    waiting: p.waitingCount,
  });
  return {
    db,
    features: postgresFeatures,
    description: `postgres ${redactUrl(url)}`,
    reader: timedReader(poolReader(readPool, db, postgresFeatures), observer),
    readerFor: (executor) => executorReader(executor, postgresFeatures),
    cache: cacheRegistry(watch.current),
    commitGroup: (write, group) => {
      const created = createCommitGroup(durableCommits(db), write, { ...GROUP_COMMIT, ...options.groups, ...group }, observer);
      groups.push(created as CommitGroup<never>);
      return created;
    },
    ping: () => ping(db),
    pendingMigrations: () => pendingMigrations(db),
    stats: () => ({
      pools: [poolStats('write', pool, poolSize), poolStats('read', readPool, readPoolSize)],
      queuedRecords: groups.reduce((n, g) => n + g.queued, 0),
    }),
    async close() {
      await Promise.all(groups.map((g) => g.idle()));
      await statistics.close();
      await watch.stop();
      await db.destroy();
      await readPool.end();
    },
  };
}
