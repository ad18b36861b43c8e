import type { CompiledQuery, DatabaseConnection, Driver, OperationNode, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';

/**
 * In-process caches (issue 7) are told when the data behind them may have changed through a
 * change epoch per topic: a number that moves whenever a commit touched one of the topic's tables,
 * in this process or another. Each dialect keeps the epochs its own way (sqlite.ts, postgres.ts);
 * the topics and their tables are defined here once.
 */
export const CHANGE_TOPICS = {
  /** The token → user and membership caches. */
  access: ['users', 'access_tokens', 'apps', 'members'],
  /** The customer list's page anchors (positions shift whenever a customer is written). */
  customers: ['customers'],
} as const;

export type ChangeTopic = keyof typeof CHANGE_TOPICS;
export const TOPICS = Object.keys(CHANGE_TOPICS) as ChangeTopic[];

const TOPIC_OF_TABLE = new Map<string, ChangeTopic>(
  TOPICS.flatMap((topic) => CHANGE_TOPICS[topic].map((table) => [table, topic] as [string, ChangeTopic])),
);

/** The topic a table belongs to, if any. */
export function topicOfTable(table: string): ChangeTopic | undefined {
  return TOPIC_OF_TABLE.get(table);
}

const RAW_WRITE = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i;
const RAW_READ = /^\s*(?:select|with\s+[^;]*\bselect\b(?![^;]*\b(?:insert|update|delete)\b))/i;

/**
 * The topics a statement may change: none for a select, the written table's topic for an insert,
 * update or delete (also when written as SQL text, as the bulk writes are), every topic for
 * anything else (DDL, other raw SQL), to be safe.
 */
export function topicsWrittenBy(query: CompiledQuery): readonly ChangeTopic[] {
  const node: OperationNode = query.query;
  switch (node.kind) {
    case 'SelectQueryNode':
      return [];
    case 'InsertQueryNode':
    case 'UpdateQueryNode':
    case 'DeleteQueryNode':
    case 'MergeQueryNode': {
      const table = tableName(node);
      if (table === undefined) return TOPICS;
      const topic = topicOfTable(table);
      return topic ? [topic] : [];
    }
    case 'RawNode': {
      if (RAW_READ.test(query.sql)) return [];
      const m = RAW_WRITE.exec(query.sql);
      if (!m) return TOPICS;
      const topic = topicOfTable(m[1] as string);
      return topic ? [topic] : [];
    }
    default:
      return TOPICS;
  }
}

function tableName(node: OperationNode): string | undefined {
  const n = node as unknown as {
    into?: OperationNode;
    table?: OperationNode;
    from?: { froms?: OperationNode[] };
  };
  const target = n.into ?? n.table ?? n.from?.froms?.[0];
  return target === undefined ? undefined : identifierOf(target);
}

function identifierOf(node: OperationNode): string | undefined {
  const n = node as unknown as { kind: string; table?: OperationNode; node?: OperationNode; identifier?: { name?: string } };
  if (n.kind === 'TableNode' && n.table) return identifierOf(n.table);
  if (n.kind === 'AliasNode' && n.node) return identifierOf(n.node);
  if (n.kind === 'SchemableIdentifierNode') return n.identifier?.name;
  return undefined;
}

/**
 * Wraps a driver's connections so that `committed(topics)` is called once a write is durable:
 * after an autocommitted statement returns, or after COMMIT for the topics written inside the
 * transaction (rolled-back writes report nothing).
 */
export class ChangeTrackingConnection implements DatabaseConnection {
  private inTransaction = false;
  private readonly pending = new Set<ChangeTopic>();

  constructor(
    readonly inner: DatabaseConnection,
    private readonly committed: (topics: Iterable<ChangeTopic>) => void,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const topics = topicsWrittenBy(compiledQuery);
    const result = await this.inner.executeQuery<R>(compiledQuery);
    if (topics.length > 0) {
      if (this.inTransaction) for (const t of topics) this.pending.add(t);
      else this.committed(topics);
    }
    return result;
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }

  begin(): void {
    this.inTransaction = true;
    this.pending.clear();
  }

  end(committed: boolean): void {
    this.inTransaction = false;
    if (committed && this.pending.size > 0) this.committed([...this.pending]);
    this.pending.clear();
  }
}

type Compile = QueryCompiler['compileQuery'];

/** A driver whose connections report their durable writes (ChangeTrackingConnection). */
export class ChangeTrackingDriver implements Driver {
  private readonly wrappers = new WeakMap<DatabaseConnection, ChangeTrackingConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly committed: (topics: Iterable<ChangeTopic>) => void,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const c = await this.inner.acquireConnection();
    let w = this.wrappers.get(c);
    if (w === undefined) this.wrappers.set(c, (w = new ChangeTrackingConnection(c, this.committed)));
    return w;
  }

  // BEGIN, COMMIT and savepoints go to the driver's own connection: they write nothing by themselves.
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const w = connection as ChangeTrackingConnection;
    await this.inner.beginTransaction(w.inner, settings);
    w.begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const w = connection as ChangeTrackingConnection;
    await this.inner.commitTransaction(w.inner);
    w.end(true);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const w = connection as ChangeTrackingConnection;
    try {
      await this.inner.rollbackTransaction(w.inner);
    } finally {
      w.end(false);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.savepoint?.((connection as ChangeTrackingConnection).inner, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.rollbackToSavepoint?.((connection as ChangeTrackingConnection).inner, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.releaseSavepoint?.((connection as ChangeTrackingConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as ChangeTrackingConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
