import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  BinaryOperationNode,
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type KyselyPlugin,
  LimitNode,
  OperationNodeTransformer,
  OperatorNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type SqlBool,
  SqliteDialect,
  SqliteDriver,
  type UnknownRow,
  ValueNode,
  sql,
} from 'kysely';
import { ChangeTrackingDriver, type ChangeTopic } from './change-epoch.ts';
import {
  type CommitGroup,
  type CommitGroupOptions,
  GROUP_COMMIT,
  type GroupTransactions,
  createCommitGroup,
  durableCommits,
} from './group-commit.ts';
import { pendingMigrations } from './migrate.ts';
import { type DatabaseObserver, NO_DATABASE_OBSERVER, statementLog, timedReader } from './observer.ts';
import { cacheRegistry } from './cache.ts';
import { ping } from './sql.ts';
import type { DialectFeatures } from './dialect.ts';
import type { DatabaseHandle } from './handle.ts';
import type { PreparedQuery, PreparedReader, QueryTemplate } from './prepared.ts';
import { bindTemplate, executorReader, jsonArrayRows, rowBuilder, templateFor } from './prepared.ts';
import type { Database } from './schema.ts';
import { SqliteReadWorker } from './sqlite-worker.ts';

export const sqliteFeatures: DialectFeatures = {
  name: 'sqlite',
  skipLocked: false,
  maxParameters: 32766,
  arrayParameters: false,
  transactionLock: async () => {},
  listParameter: (column, list) => sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${list}))`,
  projectIs: (column, appId) => sql<SqlBool>`+${sql.ref(column)} = ${appId}`,
  rowsAsJson: (subquery, columns) =>
    sql`(select json_group_array(json_array(${sql.join(columns.map((c) => sql.ref(`j.${c}`)))})) from (${subquery}) as j)`,
};

/** Lists bind as JSON text (json_each in listParameter). */
const sqliteParameters = (params: unknown[]) => params.map((p) => (Array.isArray(p) ? JSON.stringify(p) : p));

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew; preparing is a large share of a bulk insert's cost (ADR 0007:
 * profile), so prepared statements are reused by SQL text. Kysely runs one query at a time on
 * the single connection, so a cached statement is never used by two queries at once.
 */
function withStatementCache(raw: SqliteDatabase.Database): SqliteDatabase.Database {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return new Proxy(raw, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (source: string) => {
        let stmt = cache.get(source);
        if (stmt === undefined || stmt.busy) {
          stmt = target.prepare(source);
          if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
          cache.set(source, stmt);
        } else {
          // Least recently used goes first when the cache is full.
          cache.delete(source);
          cache.set(source, stmt);
        }
        return stmt;
      };
    },
  });
}

/**
 * `LIMIT ?` becomes `LIMIT ? + 0`. SQLite's planner reads a bare LIMIT parameter's value when it
 * plans (to cost an ordered index walk against a sort), which marks the statement as depending on
 * that binding: every execution with the parameter bound again is re-prepared from its SQL text,
 * 30–100 µs for a page query (a one-row phone search cost 112 µs, 14 µs with this).
 * Behind an expression the value is not looked at and the prepared plan is kept; the plans are the
 * same (EXPLAIN QUERY PLAN of the list and search pages). OFFSET parameters do not have the problem.
 */
class LimitAsExpression extends OperationNodeTransformer implements KyselyPlugin {
  protected override transformLimit(node: LimitNode, queryId?: QueryId): LimitNode {
    const limit = super.transformLimit(node, queryId);
    if (!ValueNode.is(limit.limit) || limit.limit.immediate === true) return limit;
    return LimitNode.create(BinaryOperationNode.create(limit.limit, OperatorNode.create('+'), ValueNode.createImmediate(0)));
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/**
 * Transactions begin IMMEDIATE: they take the write lock up front (waiting up to busy_timeout).
 * A deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
 * process (WORKERS > 1, `rapport relay`) committed in between; waiting at BEGIN cannot fail that way.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly options: ConstructorParameters<typeof SqliteDialect>[0],
    private readonly committed: (topics: Iterable<ChangeTopic>) => void,
  ) {
    super(options);
  }
  override createDriver(): Driver {
    return new ChangeTrackingDriver(new ImmediateSqliteDriver(this.options), this.committed);
  }
}

/**
 * Prepared reads on a second connection. In WAL mode it reads the last committed state without
 * waiting for the writer, and never sees the writer connection's open transaction (Kysely holds
 * the writer across awaits, so a read there could observe another request's uncommitted rows).
 * `PRAGMA data_version` on it changes whenever any other connection, in this process or another,
 * commits: the change epoch of in-process caches.
 */
function openReader(file: string, db: Kysely<Database>, worker: SqliteReadWorker | null) {
  const raw = new SqliteDatabase(file, { fileMustExist: true });
  raw.pragma('busy_timeout = 5000');
  raw.pragma('query_only = ON');
  // With a read worker this connection only prepares statements (to learn their columns) and
  // watches data_version: the worker's connection has the page cache.
  raw.pragma(`cache_size = ${worker ? -2048 : READ_CACHE_SIZE}`);
  /** `pluck`: the statement's one column is the row as JSON text. */
  type Entry = { template: QueryTemplate; stmt: SqliteDatabase.Statement; row: (values: unknown[]) => unknown; pluck: boolean };
  const statements = new Map<PreparedQuery<never, unknown>, Entry>();
  const prepared = (q: PreparedQuery<never, unknown>) => {
    let entry = statements.get(q);
    if (entry === undefined) {
      const template = templateFor(db, sqliteFeatures, q);
      // Rows as arrays, made into objects by a function of fixed shape: better-sqlite3 builds an
      // object row property by property through the V8 API, about twice the cost (ADR 0002).
      let stmt = raw.prepare(template.sql).raw(true);
      const columns = stmt.columns().map((c) => c.name);
      let row = rowBuilder(columns);
      let pluck = false;
      if (columns.length >= JSON_ROW_COLUMNS) {
        pluck = true;
        // A wide row comes back as one JSON text: better-sqlite3 spends ~0.1 µs handing each
        // value to V8, SQLite's json_array and V8's JSON.parse together less than half of that
        // (a 20-row customer page: 143 → 63 µs). The subquery keeps the statement's order.
        const outer = jsonArrayRows(template.sql, columns, 'json_array');
        stmt = raw.prepare(outer).pluck(true);
        const build = row;
        row = (text) => build(JSON.parse(text as unknown as string) as unknown[]);
      }
      entry = { template, stmt, row, pluck };
      statements.set(q, entry);
    }
    return entry;
  };
  const dataVersion = raw.prepare('pragma data_version').pluck();
  let counters: SqliteDatabase.Statement | null = null;
  let seenVersion = -1;
  let checkedAt = -Infinity;
  let epochs = new Map<string, number>();
  /**
   * data_version (a WAL read, ~2-3 µs) is looked at most once a millisecond, and at once after
   * this process committed a write to a topic's table (`localWrite`): this process always reads
   * its own writes, another process's commit is seen within a millisecond.
   */
  const changeEpoch = (topic: ChangeTopic): number | null => {
    const now = performance.now();
    if (now - checkedAt >= 1) {
      checkedAt = now;
      const v = dataVersion.get() as number;
      if (v !== seenVersion) {
        seenVersion = v;
        try {
          counters ??= raw.prepare('select topic, n from change_epoch').raw(true);
          epochs = new Map(counters.all() as [string, number][]);
        } catch {
          epochs = new Map(); // not migrated yet: no caching
        }
      }
    }
    return epochs.get(topic) ?? null;
  };
  const localWrite = () => {
    checkedAt = -Infinity;
  };
  const reader: PreparedReader = worker
    ? {
        async all(q, ...args) {
          const { template, stmt, row, pluck } = prepared(q as PreparedQuery<never, unknown>);
          const rows = (await worker.read(stmt.source, sqliteParameters(bindTemplate(template, args)), false, pluck)) as unknown[][];
          return rows.map(row) as never[];
        },
        async first(q, ...args) {
          const { template, stmt, row, pluck } = prepared(q as PreparedQuery<never, unknown>);
          const values = (await worker.read(stmt.source, sqliteParameters(bindTemplate(template, args)), true, pluck)) as
            unknown[] | undefined;
          return (values === undefined ? undefined : row(values)) as never;
        },
      }
    : {
        all(q, ...args) {
          const { template, stmt, row } = prepared(q as PreparedQuery<never, unknown>);
          return Promise.resolve((stmt.all(sqliteParameters(bindTemplate(template, args))) as unknown[][]).map(row) as never[]);
        },
        first(q, ...args) {
          const { template, stmt, row } = prepared(q as PreparedQuery<never, unknown>);
          const values = stmt.get(sqliteParameters(bindTemplate(template, args))) as unknown[] | undefined;
          return Promise.resolve((values === undefined ? undefined : row(values)) as never);
        },
      };
  return { raw, reader, epoch: changeEpoch, localWrite, worker };
}

/** The read connection's page cache (KiB when negative, as SQLite's cache_size). */
const READ_CACHE_SIZE = -32768;

/**
 * The read worker's page cache: half the main-thread reader's. The worker's thread and heap cost
 * ~10–25 MB of RSS of their own; with a 32 MB cache the server's peak passed the 250 MB budget on
 * the bench's dataset (ADR 0003). A page missing from it is read from the OS's cache on the worker's
 * thread, off the main one.
 */
const WORKER_CACHE_SIZE = -16384;

/** Prepared reads with at least this many columns transfer each row as JSON text (openReader). */
const JSON_ROW_COLUMNS = 8;

/**
 * Group commits on SQLite. better-sqlite3 runs on the main thread, so a commit under
 * `synchronous = FULL` blocks the whole server for its fsync of the WAL. A group's transaction
 * commits under `synchronous = NORMAL` instead (the WAL is written, not fsynced; the pragma is set
 * and reset on the one write connection while the group holds it), and the group is acknowledged
 * only after the WAL file has been fsynced on libuv's thread pool: as durable as FULL, while the
 * event loop parses the next group's requests. Every other transaction keeps FULL.
 */
function walSyncedCommits(
  db: Kysely<Database>,
  raw: SqliteDatabase.Database,
  file: string,
): GroupTransactions & { close(): Promise<void> } {
  let wal: Promise<fs.promises.FileHandle> | null = null;
  let flushing: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const flushWal = async () => {
    // The WAL exists once the first transaction has committed; it is never removed while the database is open.
    wal ??= fs.promises.open(`${file}-wal`, 'r');
    try {
      await (await wal).sync();
    } catch (err) {
      wal = null;
      throw err;
    }
  };
  // A flush that started before this commit does not cover it: wait for it, then flush once more
  // for everyone who arrived meanwhile.
  const durable = (): Promise<void> => {
    if (flushing === null) {
      flushing = flushWal().finally(() => {
        flushing = null;
      });
      return flushing;
    }
    next ??= flushing
      .catch(() => {})
      .then(() => {
        next = null;
        return durable();
      });
    return next;
  };
  return {
    transaction: (write) =>
      db.connection().execute(async (connection) => {
        raw.pragma('synchronous = NORMAL');
        try {
          await connection.transaction().execute(write);
        } finally {
          raw.pragma('synchronous = FULL');
        }
      }),
    durable,
    async close() {
      const handle = await wal?.catch(() => null);
      await handle?.close();
    },
  };
}

/** Opens (creating if needed) the embedded database file, tuned for a single-writer server. */
export function openSqlite(
  file: string,
  options: { readThread?: boolean; groups?: Partial<CommitGroupOptions>; observer?: DatabaseObserver } = {},
): DatabaseHandle {
  const observer = options.observer ?? NO_DATABASE_OBSERVER;
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new SqliteDatabase(file);
  raw.pragma('journal_mode = WAL');
  // FULL: a commit is on disk (the WAL fsynced) before it returns, so an acknowledged write survives
  // power loss, not only a crash of the process. Group commits get the same guarantee with their
  // fsync off the main thread (walSyncedCommits).
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('cache_size = -32768');
  raw.pragma('temp_store = MEMORY');
  // Checkpoint every ~40 MB of WAL instead of ~4 MB: an ingestion batch writes ~4 MB, and a
  // checkpoint (with its fsync) after every batch doubled the batch's commit time (ADR 0001).
  raw.pragma('wal_autocheckpoint = 10000');
  let second: ReturnType<typeof openReader> | null = null;
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(raw) }, () => second?.localWrite()),
    plugins: [new LimitAsExpression()],
    log: statementLog(observer),
  });
  // SQLITE_READ_THREAD: prepared reads on a worker thread (src/db/sqlite-worker.ts).
  const worker = file !== ':memory:' && options.readThread ? new SqliteReadWorker(file, WORKER_CACHE_SIZE) : null;
  second = file === ':memory:' ? null : openReader(file, db, worker);
  const synced = file === ':memory:' ? null : walSyncedCommits(db, raw, file);
  const groupTransactions = synced ?? durableCommits(db);
  const groups: CommitGroup<never>[] = [];
  return {
    db,
    features: sqliteFeatures,
    description: `sqlite ${file}`,
    reader: timedReader(second?.reader ?? executorReader(db, sqliteFeatures, sqliteParameters), observer),
    readerFor: (executor) => executorReader(executor, sqliteFeatures, sqliteParameters),
    cache: cacheRegistry(second ? second.epoch : () => null),
    // One writer: groups commit one after the other.
    commitGroup: (write, group) => {
      const created = createCommitGroup(
        groupTransactions,
        write,
        { ...GROUP_COMMIT, ...options.groups, concurrency: 1, maxWaitMs: 0, ...group },
        observer,
      );
      groups.push(created as CommitGroup<never>);
      return created;
    },
    ping: () => ping(db),
    pendingMigrations: () => pendingMigrations(db),
    stats: () => ({ pools: [], queuedRecords: groups.reduce((n, g) => n + g.queued, 0) }),
    async close() {
      await Promise.all(groups.map((g) => g.idle()));
      await second?.worker?.close();
      second?.raw.close();
      await synced?.close();
      await db.destroy();
    },
  };
}
