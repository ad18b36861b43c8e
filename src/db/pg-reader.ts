/**
 * Prepared reads on PostgreSQL (DatabaseHandle.reader): named statements, rows as one json value
 * each, and concurrent reads of one statement coalesced into one statement.
 */
import { createHash } from 'node:crypto';
import { type Kysely, type RawBuilder, isOperationNodeSource, sql } from 'kysely';
import type pg from 'pg';
import type { DialectFeatures } from './dialect.ts';
import type { AnyPreparedQuery, PreparedQuery, PreparedReader, QueryTemplate } from './prepared.ts';
import { argumentMarker, bindTemplate, buildWith, jsonArrayRows, queryScope, rowBuilder, templateFor } from './prepared.ts';
import type { Database } from './schema.ts';

/** json_build_array takes at most this many arguments (PostgreSQL's FUNC_MAX_ARGS). */
const MAX_JSON_ARRAY_COLUMNS = 100;

/**
 * Coalescing. Every statement costs node-postgres ~40–90 µs of Node CPU and PostgreSQL ~50–100 µs
 * (protocol, snapshot, executor start) whatever it reads, more than a primary-key read itself. Reads
 * of one statement that wait together go out as ONE statement: their arguments bound as one array
 * per argument, `unnest … with ordinality` makes a row per read, and the query runs once per row
 * as a correlated subquery (built by the query's own builder, with each argument a column of the
 * unnested row) whose rows come back as one json array. At most MAX_BATCHES_IN_FLIGHT statements of
 * a kind run at once; the reads arriving meanwhile wait and go out together when one returns. An
 * idle server so sends each read alone at once, a busy one sends fewer, larger statements.
 *
 * The inner query is planned without its arguments' values, which is safe for a key look-up but
 * not for a page: with `limit`/`offset` unknown PostgreSQL assumes a tenth of the rows and may pick
 * a join that reads a whole table. So page sizes and offsets are written into the coalesced
 * statement as numbers: reads go together only when those are equal, and only small ones
 * (≤ MAX_INLINED_PAGE_VALUE, and at most MAX_STATEMENTS_PER_KIND texts per query, so a bounded
 * number of prepared statements per connection). A read that cannot go with others (a deep page, an
 * argument that is an array) runs at once on its own. A batch PostgreSQL refuses (one bad argument
 * fails it whole) runs again in halves, down to the reads alone, so each read gets its own answer
 * or error.
 */
const MAX_BATCHES_IN_FLIGHT = 2;
/** Reads per coalesced statement at most (its answer carries every one's rows). */
const MAX_BATCH = 128;
/** Largest `limit`/`offset` written into a coalesced statement. */
const MAX_INLINED_PAGE_VALUE = 1000;
/** Coalesced statements per query at most (each prepared on every connection that runs it). */
const MAX_STATEMENTS_PER_KIND = 32;
/** The unnested arguments' alias inside a coalesced statement. */
const ARGS = 'rapport_args';
/** PostgreSQL type names as pg_prepared_statements spells them (`integer`, `character varying`). */
const TYPE_NAME = /^[a-z][a-z0-9 _"]*$/;

const statementName = (text: string) => `rp_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

/** How a query is coalesced: which arguments travel as arrays (with their types), which are written in. */
export interface CoalescedForm {
  /** Arguments written into the text (limits and offsets). */
  readonly inlined: readonly number[];
  /** Arguments bound as one array each, in order, with their PostgreSQL types. */
  readonly arrays: readonly { readonly argument: number; readonly type: string }[];
}

/**
 * The coalesced form of a query whose parameters have these types (pg_prepared_statements), or
 * null when it has none: an array argument cannot travel in an array of its own, and a query
 * without arguments has nothing to tell its reads apart.
 */
export function coalescedForm(t: Pick<QueryTemplate, 'slots' | 'pageArguments'>, types: readonly string[]): CoalescedForm | null {
  const arrays: { argument: number; type: string }[] = [];
  for (let p = 0; p < t.slots.length; p += 1) {
    const argument = t.slots[p] as number;
    if (argument < 0 || t.pageArguments.includes(argument)) continue;
    const type = types[p];
    if (type === undefined || type.endsWith('[]') || type === 'unknown' || !TYPE_NAME.test(type)) return null;
    arrays.push({ argument, type });
  }
  if (arrays.length === 0) return null;
  arrays.sort((a, b) => a.argument - b.argument);
  return { inlined: t.pageArguments, arrays };
}

/** A coalesced statement: its text, and per parameter the array it takes (or -1 with a constant). */
interface CoalescedStatement {
  readonly name: string;
  readonly text: string;
  readonly slots: readonly number[];
  readonly constants: readonly unknown[];
}

/**
 * Builds the coalesced statement of a query for these values of its inlined arguments, through
 * the query's own builder: each array argument becomes a column of the unnested row, each inlined
 * one a literal number, and the result is wrapped so each read's rows come back as one json array.
 */
export function coalescedStatement(
  db: Kysely<Database>,
  features: DialectFeatures,
  q: AnyPreparedQuery,
  form: CoalescedForm,
  columns: readonly string[],
  inlinedValues: readonly number[],
): CoalescedStatement {
  const args: unknown[] = Array.from({ length: q.arity }, (_, i) => {
    const at = form.inlined.indexOf(i);
    return at >= 0 ? sql.lit(inlinedValues[at] as number) : sql.ref(`${ARGS}.a${i}`);
  });
  const inner = buildWith(q, queryScope(db, features), args);
  if (!isOperationNodeSource(inner)) throw new Error(`prepared query ${q.name}: its builder must return a query`);
  const row = sql.join(columns.map((c) => sql.id('r', c)));
  const unnest: RawBuilder<unknown>[] = form.arrays.map((a, k) => sql`${argumentMarker(k)}::${sql.raw(a.type)}[]`);
  const names = form.arrays.map((a) => sql.ref(`a${a.argument}`));
  const compiled =
    sql`select ${sql.raw(ARGS)}.i, (select json_agg(s.r) from (select json_build_array(${row}) as r from ${inner} as r) as s) as rs from unnest(${sql.join(unnest)}) with ordinality as ${sql.raw(ARGS)}(${sql.join(names)}, i)`.compile(
      db,
    );
  const markers = form.arrays.map((_, k) => argumentMarker(k));
  const slots = compiled.parameters.map((p) => (typeof p === 'string' ? markers.indexOf(p) : -1));
  const constants = compiled.parameters.map((p, i) => (slots[i] === -1 ? p : undefined));
  return { name: statementName(compiled.sql), text: compiled.sql, slots, constants };
}

interface Waiting {
  args: readonly unknown[];
  /** The inlined arguments' values, as a key: reads go together only with equal keys. */
  key: string;
  resolve: (rows: never[]) => void;
  reject: (error: unknown) => void;
}

interface Batches {
  form: CoalescedForm;
  columns: readonly string[];
  /** Coalesced statement per key (the inlined values). */
  statements: Map<string, CoalescedStatement>;
  /** The keys handed out (at most MAX_STATEMENTS_PER_KIND): each becomes one statement. */
  keys: Set<string>;
  waiting: Waiting[];
  inFlight: number;
  scheduled: boolean;
}

interface PgTemplate extends QueryTemplate {
  name: string;
  /** The row object from the statement's one json column; null while the columns are unknown. */
  row: ((values: unknown[]) => unknown) | null;
  /** Rows as they come (too many or duplicate columns for one json array). */
  plain: boolean;
  /** The coalesced form, once known; null when the query cannot have one. */
  batches: Batches | null;
}

type BatchRow = { i: number | string; rs: unknown[][] | null };

/**
 * Named (server-side prepared) statements: PostgreSQL parses and plans each once per connection.
 * After the first execution (which tells the result's columns and the parameters' types) each row
 * comes back as ONE json array (`json_build_array` of the columns over the statement), which
 * node-postgres hands to V8's JSON.parse whole: otherwise it decodes every value of every row on its
 * own, through a type parser per column rebuilt from each execution's row description (a
 * 20-customer page is ~1,000 values). The sub-select keeps the statement's order; every column type
 * we store (text, integer, bigint, numeric sums) reads back the same either way. Reads of one
 * query waiting together are coalesced (see above).
 */
export function poolReader(pool: pg.Pool, db: Kysely<Database>, features: DialectFeatures): PreparedReader {
  const templates = new Map<PreparedQuery<never, unknown>, PgTemplate>();

  /** The first execution, on one connection: the columns, and the parameter types it was planned with. */
  const first = async (q: PreparedQuery<never, unknown>, t: PgTemplate, values: unknown[]): Promise<never[]> => {
    const client = await pool.connect();
    let plain: pg.QueryResult;
    let types: string[] | undefined;
    try {
      plain = await client.query({ name: t.name, text: t.sql, values });
      const described = await client.query<{ types: string[] }>(
        'select parameter_types::text[] as types from pg_prepared_statements where name = $1',
        [t.name],
      );
      types = described.rows[0]?.types;
    } finally {
      client.release();
    }
    const columns = plain.fields.map((f) => f.name);
    if (columns.length <= MAX_JSON_ARRAY_COLUMNS && new Set(columns).size === columns.length) {
      const text = jsonArrayRows(t.sql, columns, 'json_build_array');
      const form = types ? coalescedForm(t, types) : null;
      const batches: Batches | null = form
        ? { form, columns, statements: new Map(), keys: new Set(), waiting: [], inFlight: 0, scheduled: false }
        : null;
      templates.set(q, { ...t, sql: text, name: statementName(text), row: rowBuilder(columns), batches });
    } else {
      templates.set(q, { ...t, plain: true });
    }
    return plain.rows as never[];
  };

  const buildRows = (build: (values: unknown[]) => unknown, arrays: readonly unknown[][]): never[] => {
    const out = new Array<never>(arrays.length);
    for (let i = 0; i < arrays.length; i += 1) out[i] = build(arrays[i] as unknown[]) as never;
    return out;
  };

  const alone = async (t: PgTemplate, args: readonly unknown[]): Promise<never[]> => {
    const rows = (await pool.query<{ r: unknown[] }>({ name: t.name, text: t.sql, values: bindTemplate(t, args) })).rows;
    return buildRows(
      t.row as (values: unknown[]) => unknown,
      rows.map((x) => x.r),
    );
  };

  const together = async (q: PreparedQuery<never, unknown>, t: PgTemplate, b: Batches, group: Waiting[]): Promise<void> => {
    const head = group[0] as Waiting;
    if (group.length === 1) return alone(t, head.args).then(head.resolve, head.reject);
    let statement = b.statements.get(head.key);
    if (statement === undefined) {
      const inlined = b.form.inlined.map((a) => head.args[a] as number);
      statement = coalescedStatement(db, features, q, b.form, b.columns, inlined);
      b.statements.set(head.key, statement);
    }
    const arrays = b.form.arrays.map((a) => group.map((w) => w.args[a.argument]));
    const values = statement.slots.map((s, i) => (s >= 0 ? arrays[s] : statement.constants[i]));
    let result: BatchRow[];
    try {
      result = (await pool.query<BatchRow>({ name: statement.name, text: statement.text, values })).rows;
    } catch {
      // One read the statement refuses fails them all: the halves run again (a lone read as the plain
      // statement), so each read gets its own answer or error in ~2·log2(n) more statements, not n.
      const half = Math.ceil(group.length / 2);
      await Promise.all([together(q, t, b, group.slice(0, half)), together(q, t, b, group.slice(half))]);
      return;
    }
    const build = t.row as (values: unknown[]) => unknown;
    const answers = new Array<unknown[][] | null | undefined>(group.length);
    for (const { i, rs } of result) answers[Number(i) - 1] = rs;
    group.forEach((w, k) => {
      const rs = answers[k];
      if (rs === undefined) w.reject(new Error('coalesced read: no answer for one of its reads'));
      else {
        try {
          w.resolve(buildRows(build, rs ?? []));
        } catch (error) {
          w.reject(error);
        }
      }
    });
  };

  /** Sends what waits, a group per key, while fewer than MAX_BATCHES_IN_FLIGHT are out. */
  const flush = (q: PreparedQuery<never, unknown>, t: PgTemplate, b: Batches) => {
    b.scheduled = false;
    while (b.waiting.length > 0 && b.inFlight < MAX_BATCHES_IN_FLIGHT) {
      const { key } = b.waiting[0] as Waiting;
      const group: Waiting[] = [];
      const rest: Waiting[] = [];
      for (const w of b.waiting) (w.key === key && group.length < MAX_BATCH ? group : rest).push(w);
      b.waiting = rest;
      b.inFlight += 1;
      void together(q, t, b, group)
        .catch((error: unknown) => {
          for (const w of group) w.reject(error); // not expected: together() answers every read itself
        })
        .finally(() => {
          b.inFlight -= 1;
          if (b.waiting.length > 0 && !b.scheduled) flush(q, t, b);
        });
    }
  };

  /**
   * The key of the reads a read may go with, or null when it must run alone: a page past what is
   * written in, a new key once MAX_STATEMENTS_PER_KIND are taken, or an argument that is an object
   * (an array or a Buffer would not travel inside an array parameter as it does alone).
   */
  const keyOf = (b: Batches, args: readonly unknown[]): string | null => {
    for (const a of b.form.arrays) {
      const v = args[a.argument];
      if (typeof v === 'object' && v !== null) return null;
    }
    let key = '';
    for (const a of b.form.inlined) {
      const v = args[a];
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > MAX_INLINED_PAGE_VALUE) return null;
      key += `${v},`;
    }
    if (b.keys.has(key)) return key;
    if (b.keys.size >= MAX_STATEMENTS_PER_KIND) return null;
    b.keys.add(key);
    return key;
  };

  const run = (q: PreparedQuery<never, unknown>, args: readonly unknown[]): Promise<never[]> => {
    let t = templates.get(q);
    if (t === undefined) {
      const compiled = templateFor(db, features, q);
      t = { ...compiled, name: statementName(compiled.sql), row: null, plain: false, batches: null };
      templates.set(q, t);
    }
    if (t.plain) return pool.query({ name: t.name, text: t.sql, values: bindTemplate(t, args) }).then((r) => r.rows as never[]);
    if (t.row === null) return first(q, t, bindTemplate(t, args));
    const b = t.batches;
    if (b === null) return alone(t, args);
    const key = keyOf(b, args);
    // A read that cannot go with others runs at once, without waiting for a batch's turn.
    if (key === null) return alone(t, args);
    const template = t;
    return new Promise<never[]>((resolve, reject) => {
      b.waiting.push({ args, key, resolve, reject });
      if (!b.scheduled && b.inFlight < MAX_BATCHES_IN_FLIGHT) {
        // The reads that arrive in this turn of the event loop go out together.
        b.scheduled = true;
        setImmediate(flush, q, template, b);
      }
    });
  };
  return {
    all: (q, ...args) => run(q as PreparedQuery<never, unknown>, args),
    first: async (q, ...args) => (await run(q as PreparedQuery<never, unknown>, args))[0],
  };
}
