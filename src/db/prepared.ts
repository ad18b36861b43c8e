import {
  type Compilable,
  type CompiledQuery,
  type Expression,
  type Kysely,
  type KyselyPlugin,
  type LimitNode,
  type OffsetNode,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RawBuilder,
  type RootOperationNode,
  type SqlBool,
  type UnknownRow,
  type ValueNode,
  createQueryId,
} from 'kysely';
import type { DialectFeatures } from './dialect.ts';
import type { Database } from './schema.ts';

/** What a prepared query's builder gets: the query builder, and the dialect's list parameter. */
export interface QueryScope {
  db: Kysely<Database>;
  /** `column IN (the list bound as ONE parameter)`: pass an argument that is an array at run time. */
  inList(column: string, list: unknown, type: 'text' | 'int8'): RawBuilder<SqlBool>;
  /** A subquery's rows as one JSON value (DialectFeatures.rowsAsJson); read it with `jsonRowsOf`. */
  rowsAsJson(subquery: Expression<unknown>, columns: readonly string[]): RawBuilder<unknown>;
  /** `column = appId` beside a primary-key condition, kept out of SQLite's index choice (DialectFeatures.projectIs). */
  projectIs(column: string, appId: unknown): RawBuilder<SqlBool>;
}

/**
 * A read query written once with Kysely and compiled once, then executed many times with new
 * arguments. Building and compiling a Kysely query costs more than executing a
 * primary-key lookup; hot paths (token → user, membership, customer detail, list pages) describe
 * their statement here and hand only the arguments to `DatabaseHandle.reader`.
 *
 * The builder receives one placeholder per argument; each placeholder must end up as one bound
 * parameter (a `where`, `limit` or `offset` value), never inside the SQL text nor inside an array
 * (`in` lists), which is checked when the query is first compiled.
 */
export interface PreparedQuery<A extends readonly unknown[], R> {
  readonly name: string;
  readonly arity: number;
  readonly build: (q: QueryScope, ...args: A) => Compilable<R>;
}

export function preparedQuery<A extends readonly unknown[], R>(
  name: string,
  build: (q: QueryScope, ...args: A) => Compilable<R>,
): PreparedQuery<A, R> {
  return { name, arity: build.length - 1, build };
}

/**
 * The rows of a `rowsAsJson` column: SQLite hands its JSON over as text, PostgreSQL's driver (and its
 * json rows) as the parsed value.
 */
export function jsonRowsOf(value: unknown): unknown[][] {
  const rows: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (!Array.isArray(rows)) throw new Error('rowsAsJson: not a JSON array');
  return rows as unknown[][];
}

/**
 * Reads `rowsAsJson` values whose rows hold every key of `T`, in the order of `columns`, as objects.
 * A key of `T` left out of `columns` fails to compile (the second argument then names it), so the
 * list cannot fall behind its table.
 */
export function jsonRowsReader<T>() {
  return <const C extends readonly (keyof T & string)[]>(
    columns: C,
    ..._complete: [Exclude<keyof T & string, C[number]>] extends [never] ? [] : [missing: Exclude<keyof T & string, C[number]>]
  ) => {
    const build = rowBuilder([...columns]);
    return { columns, read: (value: unknown): T[] => jsonRowsOf(value).map((v) => build(v) as T) };
  };
}

/** The row type a prepared query yields. */
export type RowOf<Q> = Q extends PreparedQuery<never, infer R> ? R : never;

/** The compiled form: the SQL text and, per bound parameter, which argument (or constant) fills it. */
export interface QueryTemplate {
  readonly sql: string;
  /** The compiled select's node: run as text, the statement still says it only reads (change-epoch.ts). */
  readonly node: RootOperationNode;
  /** For each parameter: the argument index, or -1 with the constant in `constants`. */
  readonly slots: readonly number[];
  readonly constants: readonly unknown[];
  /** The arguments a `limit` or an `offset` takes (pg-reader.ts writes those into coalesced statements). */
  readonly pageArguments: readonly number[];
}

/** A value that stands for argument `i` while a prepared query is compiled. */
export const argumentMarker = (i: number) => `\u0001rapport-arg-${i}\u0001`;

/** Collects the values bound inside `limit` and `offset` clauses while a query compiles. */
class PageValueFinder extends OperationNodeTransformer implements KyselyPlugin {
  readonly found = new Set<unknown>();
  private depth = 0;

  protected override transformLimit(node: LimitNode, queryId?: QueryId): LimitNode {
    this.depth += 1;
    try {
      return super.transformLimit(node, queryId);
    } finally {
      this.depth -= 1;
    }
  }

  protected override transformOffset(node: OffsetNode, queryId?: QueryId): OffsetNode {
    this.depth += 1;
    try {
      return super.transformOffset(node, queryId);
    } finally {
      this.depth -= 1;
    }
  }

  protected override transformValue(node: ValueNode, queryId?: QueryId): ValueNode {
    if (this.depth > 0) this.found.add(node.value);
    return super.transformValue(node, queryId);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** The query scope a prepared query's builder gets for a database. */
export function queryScope(db: Kysely<Database>, features: DialectFeatures): QueryScope {
  return { db, inList: features.listParameter, rowsAsJson: features.rowsAsJson, projectIs: features.projectIs };
}

/** Any prepared query, whatever its arguments and rows. */
export type AnyPreparedQuery = PreparedQuery<never, unknown>;

/**
 * The query a prepared query's builder makes for these stand-ins of its arguments (markers,
 * column references, literals): the seam's code calls builders with values of its own.
 */
export function buildWith(q: AnyPreparedQuery, scope: QueryScope, args: readonly unknown[]): Compilable<unknown> {
  return (q.build as (scope: QueryScope, ...args: readonly unknown[]) => Compilable<unknown>)(scope, ...args);
}

export function compileTemplate(db: Kysely<Database>, features: DialectFeatures, q: AnyPreparedQuery): QueryTemplate {
  const markers = Array.from({ length: q.arity }, (_, i) => argumentMarker(i));
  const pages = new PageValueFinder();
  const compiled = buildWith(q, queryScope(db.withPlugin(pages), features), markers).compile();
  const used = new Set<number>();
  const slots: number[] = [];
  const constants: unknown[] = [];
  for (const p of compiled.parameters) {
    const i = typeof p === 'string' ? markers.indexOf(p) : -1;
    if (i >= 0) used.add(i);
    else if (typeof p === 'string' && p.includes('\u0001rapport-arg-'))
      throw new Error(`prepared query ${q.name}: an argument was transformed`);
    slots.push(i);
    constants.push(i >= 0 ? undefined : p);
  }
  if (compiled.sql.includes('\u0001') || used.size !== q.arity) {
    throw new Error(`prepared query ${q.name}: every argument must bind as exactly one parameter`);
  }
  const pageArguments = markers.flatMap((m, i) => (pages.found.has(m) ? [i] : []));
  return { sql: compiled.sql, node: compiled.query, slots, constants, pageArguments };
}

/** One execution of a template, as a compiled query whose node still says what it does. */
export function templateQuery(t: QueryTemplate, parameters: readonly unknown[]): CompiledQuery {
  return { query: t.node, queryId: createQueryId(), sql: t.sql, parameters };
}

/** The parameter list of one execution. */
export function bindTemplate(t: QueryTemplate, args: readonly unknown[]): unknown[] {
  const out = new Array<unknown>(t.slots.length);
  for (let i = 0; i < t.slots.length; i++) {
    const s = t.slots[i] as number;
    out[i] = s >= 0 ? args[s] : t.constants[i];
  }
  return out;
}

/**
 * Runs prepared queries outside any transaction: they see committed data only. A read that
 * belongs to a write (inside a transaction) goes through the Kysely transaction instead.
 */
export interface PreparedReader {
  all<A extends readonly unknown[], R>(q: PreparedQuery<A, R>, ...args: A): Promise<R[]>;
  first<A extends readonly unknown[], R>(q: PreparedQuery<A, R>, ...args: A): Promise<R | undefined>;
}

const templates = new WeakMap<DialectFeatures, Map<PreparedQuery<never, unknown>, QueryTemplate>>();

/** The query's compiled template for a dialect, compiled on first use. */
export function templateFor(db: Kysely<Database>, features: DialectFeatures, q: PreparedQuery<never, unknown>): QueryTemplate {
  let byQuery = templates.get(features);
  if (byQuery === undefined) templates.set(features, (byQuery = new Map()));
  let t = byQuery.get(q);
  if (t === undefined) byQuery.set(q, (t = compileTemplate(db, features, q)));
  return t;
}

/**
 * Prepared queries through a Kysely executor, e.g. inside a transaction, so that repository reads
 * written once serve both the hot path (DatabaseHandle.reader) and reads that belong to a write.
 * `encode` adapts the bound values to the driver (SQLite binds lists as JSON text).
 */
export function executorReader(
  executor: Kysely<Database>,
  features: DialectFeatures,
  encode: (params: unknown[]) => unknown[] = (p) => p,
): PreparedReader {
  const run = async (q: PreparedQuery<never, unknown>, args: readonly unknown[]) => {
    const t = templateFor(executor, features, q);
    return (await executor.executeQuery(templateQuery(t, encode(bindTemplate(t, args))))).rows as never[];
  };
  return {
    all: (q, ...args) => run(q as PreparedQuery<never, unknown>, args),
    first: async (q, ...args) => (await run(q as PreparedQuery<never, unknown>, args))[0],
  };
}

/** A quoted identifier for SQL text built around a compiled statement (names come from our own SQL). */
const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A statement whose rows come back as ONE JSON array each (column `r`), for a driver that hands
 * each value to V8 on its own: SQLite's `json_array`, PostgreSQL's `json_build_array`.
 * The sub-select keeps the statement's order; `rowBuilder(columns)` makes the objects again.
 */
export function jsonArrayRows(sql: string, columns: readonly string[], arrayFunction: 'json_array' | 'json_build_array'): string {
  return `select ${arrayFunction}(${columns.map(quoteIdentifier).join(', ')}) as r from (${sql}) as r`;
}

/** `(values) => ({ col0: values[0], ... })` for one statement's columns. */
export function rowBuilder(columns: string[]): (values: unknown[]) => unknown {
  if (new Set(columns).size !== columns.length) throw new Error(`duplicate result column in ${columns.join(', ')}`);
  // The names come from our own compiled SQL, and are quoted as JSON strings.
  return new Function('v', `return {${columns.map((c, i) => `${JSON.stringify(c)}: v[${i}]`).join(', ')}};`) as (
    values: unknown[],
  ) => unknown;
}
