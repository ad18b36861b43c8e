import {
  AliasNode,
  type CompiledQuery,
  type DatabaseConnection,
  DeleteQueryNode,
  type Driver,
  InsertQueryNode,
  MergeQueryNode,
  type OperationNode,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  TableNode,
  type TransactionSettings,
  UpdateQueryNode,
} from 'kysely';

/**
 * In-process caches (cache.ts) learn that the data behind them may have changed through a change
 * epoch per topic: a number that moves whenever a commit touched one of the topic's tables, in
 * this process or another. The database reports other processes' commits (triggers made by a
 * migration: counters on SQLite, NOTIFY on PostgreSQL); this process's own commits are reported at
 * once by ChangeTrackingDriver, so a request always reads what the previous one wrote.
 *
 * The tables of each topic; the triggers' migration spells the same lists out in its own text.
 */
export const CHANGE_TOPICS = {
  /** Tokens and memberships, read by every authenticated request. */
  access: ['users', 'access_tokens', 'apps', 'members'],
  /** Customer-list page anchors: positions shift whenever a customer is written. */
  customers: ['customers'],
  /** A project's scoring rules, read by every ingestion batch and every list (migration 035). */
  scoring: ['score_settings'],
} as const;

export type ChangeTopic = keyof typeof CHANGE_TOPICS;
export const TOPICS = Object.keys(CHANGE_TOPICS) as ChangeTopic[];

const TOPIC_OF_TABLE = new Map<string, ChangeTopic>(
  TOPICS.flatMap((topic) => CHANGE_TOPICS[topic].map((table) => [table, topic] as [string, ChangeTopic])),
);

const NONE: readonly ChangeTopic[] = [];

/**
 * The one table a write names (insert, update, delete of one table, merge), read from its query
 * node; undefined for a select, and for anything else (DDL, raw SQL text, a delete of several tables).
 * Statements the seam writes as text carry a node that names their table (bulk.ts); reads it runs as
 * text carry their select's node (prepared.ts).
 */
function tableOf(node: OperationNode): string | undefined {
  const target = InsertQueryNode.is(node)
    ? node.into
    : UpdateQueryNode.is(node)
      ? node.table
      : DeleteQueryNode.is(node) && node.from.froms.length === 1
        ? node.from.froms[0]
        : MergeQueryNode.is(node)
          ? node.into
          : undefined;
  const table = target !== undefined && AliasNode.is(target) ? target.node : target;
  return table !== undefined && TableNode.is(table) ? table.table.identifier.name : undefined;
}

/**
 * The topics a statement may change: none for a select, the written table's topic for a write that
 * names one table, every topic for anything else, to be safe.
 */
export function topicsWrittenBy(query: CompiledQuery): readonly ChangeTopic[] {
  if (SelectQueryNode.is(query.query)) return NONE;
  const table = tableOf(query.query);
  if (table === undefined) return TOPICS;
  const topic = TOPIC_OF_TABLE.get(table);
  return topic === undefined ? NONE : [topic];
}

/** Told of the rows a commit wrote to a table (inserted, updated or deleted: what the planner's statistics drift by). */
export type RowsWritten = (table: string, rows: number) => void;

/**
 * Wraps a driver's connections so that `committed(topics)` is called once a write is durable:
 * after an autocommitted statement returns, or after COMMIT for the topics written inside the
 * transaction (rolled-back writes report nothing).
 */
class ChangeTrackingConnection implements DatabaseConnection {
  private inTransaction = false;
  private readonly pending = new Set<ChangeTopic>();
  private readonly pendingRows = new Map<string, number>();

  constructor(
    readonly inner: DatabaseConnection,
    private readonly committed: (topics: Iterable<ChangeTopic>) => void,
    private readonly rowsCommitted: RowsWritten | undefined,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const topics = topicsWrittenBy(compiledQuery);
    const result = await this.inner.executeQuery<R>(compiledQuery);
    // An update that found no row to change changed nothing (ingestion raises customers' last
    // activity only where it moves on).
    const unchanged = UpdateQueryNode.is(compiledQuery.query) && result.numAffectedRows === 0n;
    if (topics.length > 0 && !unchanged) {
      if (this.inTransaction) for (const t of topics) this.pending.add(t);
      else this.committed(topics);
    }
    if (this.rowsCommitted !== undefined && result.numAffectedRows !== undefined && result.numAffectedRows > 0n) {
      const table = tableOf(compiledQuery.query);
      if (table !== undefined) {
        const rows = Number(result.numAffectedRows);
        if (this.inTransaction) this.pendingRows.set(table, (this.pendingRows.get(table) ?? 0) + rows);
        else this.rowsCommitted(table, rows);
      }
    }
    return result;
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }

  begin(): void {
    this.inTransaction = true;
    this.pending.clear();
    this.pendingRows.clear();
  }

  end(committed: boolean): void {
    this.inTransaction = false;
    if (committed && this.pending.size > 0) this.committed([...this.pending]);
    if (committed && this.rowsCommitted !== undefined) for (const [table, rows] of this.pendingRows) this.rowsCommitted(table, rows);
    this.pending.clear();
    this.pendingRows.clear();
  }
}

type Compile = QueryCompiler['compileQuery'];

/**
 * A driver whose connections report their durable writes by topic, and (when `rowsCommitted` is
 * given) how many rows each commit wrote per table.
 */
export class ChangeTrackingDriver implements Driver {
  private readonly wrappers = new WeakMap<DatabaseConnection, ChangeTrackingConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly committed: (topics: Iterable<ChangeTopic>) => void,
    private readonly rowsCommitted?: RowsWritten,
  ) {}

  /** The wrapper Kysely was handed for a connection (the driver only ever hands out wrappers). */
  private wrapper(connection: DatabaseConnection): ChangeTrackingConnection {
    if (!(connection instanceof ChangeTrackingConnection)) throw new Error('ChangeTrackingDriver: a connection it did not hand out');
    return connection;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const c = await this.inner.acquireConnection();
    let w = this.wrappers.get(c);
    if (w === undefined) this.wrappers.set(c, (w = new ChangeTrackingConnection(c, this.committed, this.rowsCommitted)));
    return w;
  }

  // BEGIN, COMMIT and savepoints go to the driver's own connection: they write nothing by themselves.
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const w = this.wrapper(connection);
    await this.inner.beginTransaction(w.inner, settings);
    w.begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const w = this.wrapper(connection);
    await this.inner.commitTransaction(w.inner);
    w.end(true);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const w = this.wrapper(connection);
    try {
      await this.inner.rollbackTransaction(w.inner);
    } finally {
      w.end(false);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.savepoint?.(this.wrapper(connection).inner, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.rollbackToSavepoint?.(this.wrapper(connection).inner, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.releaseSavepoint?.(this.wrapper(connection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.wrapper(connection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
