import { type Compilable, CompiledQuery, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { ChangeTopic } from './change-epoch.ts';
import type { DialectFeatures } from './dialect.ts';
import type { Database } from './schema.ts';

/** What a prepared query's builder gets: the query builder, and the dialect's list parameter. */
export interface QueryScope {
  db: Kysely<Database>;
  /** `column IN (the list bound as ONE parameter)`: pass an argument that is an array at run time. */
  inList(column: string, list: unknown, type: 'text' | 'int8'): RawBuilder<SqlBool>;
  /** A subquery's rows as one JSON value (DialectFeatures.rowsAsJson); read it with `jsonRowsOf`. */
  rowsAsJson(subquery: Expression<unknown>, columns: readonly string[]): RawBuilder<unknown>;
}

/**
 * A read query written once with Kysely and compiled once, then executed many times with new
 * arguments (issue 7). Building and compiling a Kysely query costs more than executing a
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
  /** For each parameter: the argument index, or -1 with the constant in `constants`. */
  readonly slots: readonly number[];
  readonly constants: readonly unknown[];
}

const marker = (i: number) => `\u0001rapport-arg-${i}\u0001`;

export function compileTemplate(
  db: Kysely<Database>,
  features: DialectFeatures,
  q: PreparedQuery<readonly unknown[], unknown>,
): QueryTemplate {
  const markers = Array.from({ length: q.arity }, (_, i) => marker(i));
  const compiled = q.build({ db, inList: features.listParameter, rowsAsJson: features.rowsAsJson }, ...markers).compile();
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
  return { sql: compiled.sql, slots, constants };
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

/**
 * A number per topic that changes whenever data of the topic's tables that an in-process cache
 * may hold could have changed, or null while that cannot be known (then nothing may be cached).
 * Read it before the query whose result is cached; see EpochCache and change-epoch.ts.
 */
export type ChangeEpoch = (topic: ChangeTopic) => number | null;

const templates = new WeakMap<DialectFeatures, Map<PreparedQuery<never, unknown>, QueryTemplate>>();

/** The query's compiled template for a dialect, compiled on first use. */
export function templateFor(db: Kysely<Database>, features: DialectFeatures, q: PreparedQuery<never, unknown>): QueryTemplate {
  let byQuery = templates.get(features);
  if (byQuery === undefined) templates.set(features, (byQuery = new Map()));
  let t = byQuery.get(q);
  if (t === undefined) byQuery.set(q, (t = compileTemplate(db, features, q as PreparedQuery<readonly unknown[], unknown>)));
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
    return (await executor.executeQuery(CompiledQuery.raw(t.sql, encode(bindTemplate(t, args))))).rows as never[];
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
 * each value to V8 on its own (issue 7): SQLite's `json_array`, PostgreSQL's `json_build_array`.
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
