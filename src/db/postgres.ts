import { createHash } from 'node:crypto';
import {
  type DatabaseConnection,
  type Driver,
  Kysely,
  type KyselyPlugin,
  PostgresDialect,
  type PostgresDialectConfig,
  PostgresDriver,
  type QueryId,
  type RootOperationNode,
  type SqlBool,
  sql,
} from 'kysely';
import pg from 'pg';
import type { DatabaseHandle, DialectFeatures } from './dialect.ts';
import { type PreparedQuery, type PreparedReader, type QueryTemplate, bindTemplate, executorReader, templateFor } from './prepared.ts';
import type { Database } from './schema.ts';

// BIGINT (epoch milliseconds, counters) arrives as a JS number: every value we store fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export const postgresFeatures: DialectFeatures = {
  name: 'postgres',
  skipLocked: true,
  maxParameters: 65535,
  arrayParameters: true,
  autoIncrementType: 'serial',
  autoIncrementPrimaryKey: (col) => col.primaryKey(),
  transactionLock: async (trx, key) => {
    await sql`select pg_advisory_xact_lock(${key})`.execute(trx);
  },
  // Sub-select of unnest rather than `= any($1)`: see bulk.ts anyOf (planned as index probes).
  listParameter: (column, list, type) => sql<SqlBool>`${sql.ref(column)} in (select unnest(${list}::${sql.raw(type)}[]))`,
  async createChangeNotifications(db, tables) {
    await sql`create or replace function rapport_notify_change() returns trigger language plpgsql as $$
      begin perform pg_notify(${sql.lit(CHANGE_CHANNEL)}, tg_table_name); return null; end $$`.execute(db);
    for (const table of tables) {
      await sql`create trigger ${sql.id(`${table}_notify_change`)} after insert or update or delete or truncate on ${sql.id(table)}
        for each statement execute function rapport_notify_change()`.execute(db);
    }
  },
};

/** The channel the change-notification triggers (migration 007) notify on commit. */
const CHANGE_CHANNEL = 'rapport_changes';

/**
 * The change epoch on PostgreSQL. This process bumps it itself after every commit and every
 * statement that may write outside a transaction (so its own next request never reads a stale
 * cache); other processes' commits arrive as notifications from the triggers on the tables whose
 * rows are cached (users, access_tokens, apps, members). While the listening connection is down
 * the epoch is null: nothing is cached, so a missed notification cannot leave a stale entry.
 */
class ChangeWatch {
  private epoch = 0;
  private connected = false;
  private closed = false;
  private client: pg.Client | null = null;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly url: string) {}

  bump(): void {
    this.epoch++;
  }

  current = (): number | null => (this.connected ? this.epoch : null);

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
    client.on('notification', () => this.bump());
    client
      .connect()
      .then(() => client.query(`listen ${CHANGE_CHANNEL}`))
      .then(() => {
        // Whatever changed while nobody listened: start from a fresh epoch.
        this.bump();
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

/** Bumps the epoch after commits (the driver) and after statements that are not plain selects. */
class EpochDriver extends PostgresDriver {
  constructor(
    config: PostgresDialectConfig,
    private readonly watch: ChangeWatch,
  ) {
    super(config);
  }
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    this.watch.bump();
  }
}

class EpochDialect extends PostgresDialect {
  constructor(
    private readonly config: PostgresDialectConfig,
    private readonly watch: ChangeWatch,
  ) {
    super(config);
  }
  override createDriver(): Driver {
    return new EpochDriver(this.config, this.watch);
  }
}

function epochPlugin(watch: ChangeWatch): KyselyPlugin {
  const writes = new WeakSet<QueryId>();
  return {
    transformQuery({ node, queryId }: { node: RootOperationNode; queryId: QueryId }) {
      if (node.kind !== 'SelectQueryNode') writes.add(queryId);
      return node;
    },
    async transformResult({ queryId, result }) {
      if (writes.has(queryId)) watch.bump();
      return result;
    },
  };
}

/** Named (server-side prepared) statements: PostgreSQL parses and plans each once per connection. */
function poolReader(pool: pg.Pool, db: Kysely<Database>): PreparedReader {
  const templates = new Map<PreparedQuery<never, unknown>, QueryTemplate & { name: string }>();
  const run = async (q: PreparedQuery<never, unknown>, args: readonly unknown[]) => {
    let t = templates.get(q);
    if (t === undefined) {
      const compiled = templateFor(db, postgresFeatures, q);
      t = { ...compiled, name: `rp_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 20)}` };
      templates.set(q, t);
    }
    return (await pool.query({ name: t.name, text: t.sql, values: bindTemplate(t, args) })).rows as never[];
  };
  return {
    all: (q, ...args) => run(q as PreparedQuery<never, unknown>, args),
    first: async (q, ...args) => (await run(q as PreparedQuery<never, unknown>, args))[0],
  };
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

export function openPostgres(url: string, poolSize = 10): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const watch = new ChangeWatch(url);
  watch.start();
  const db = new Kysely<Database>({ dialect: new EpochDialect({ pool }, watch), plugins: [epochPlugin(watch)] });
  return {
    db,
    features: postgresFeatures,
    description: `postgres ${redactUrl(url)}`,
    reader: poolReader(pool, db),
    readerFor: (executor) => executorReader(executor, postgresFeatures),
    changeEpoch: watch.current,
    async close() {
      await watch.stop();
      await db.destroy();
    },
  };
}
