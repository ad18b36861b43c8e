/**
 * Prepared reads on PostgreSQL (DatabaseHandle.reader): named statements, rows as one json value
 * each, and concurrent reads of one statement coalesced into one statement (issue 7).
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { DialectFeatures } from './dialect.ts';
import type { PreparedQuery, PreparedReader, QueryTemplate } from './prepared.ts';
import { bindTemplate, jsonArrayRows, rowBuilder, templateFor } from './prepared.ts';
import type { Database } from './schema.ts';

/** json_build_array takes at most this many arguments (PostgreSQL's FUNC_MAX_ARGS). */
const MAX_JSON_ARRAY_COLUMNS = 100;

/**
 * Coalescing. Every statement costs node-postgres ~40–90 µs of Node CPU and PostgreSQL ~50–100 µs
 * (protocol, snapshot, executor start) whatever it reads, more than a primary-key read itself. Reads
 * of one statement that wait together go out as ONE statement: their arguments bound as one array
 * per parameter, `unnest … with ordinality` makes a row per read, and the statement runs once per
 * row as a correlated subquery whose rows come back as one json array. At most
 * MAX_BATCHES_IN_FLIGHT statements of a kind run at once; the reads arriving meanwhile wait and go
 * out together when one returns. An idle server so sends each read alone at once, a busy one sends
 * fewer, larger statements (in the bench, 64 connections: customer detail 197 → ~70–100 µs of
 * server CPU and 135 → ~20–30 µs of PostgreSQL's a request).
 *
 * The inner statement is planned without its arguments' values, which is safe for a key look-up
 * but not for a page: with `limit`/`offset` unknown PostgreSQL assumes a tenth of the rows and may
 * pick a join that reads a whole table. So page sizes and offsets are written into the coalesced
 * statement as numbers: reads go together only when those are equal, and only small ones
 * (≤ MAX_INLINED_PAGE_VALUE, and at most MAX_STATEMENTS_PER_KIND texts per statement, so a bounded
 * number of prepared statements per connection). A read that cannot go with others (a deep page, an
 * argument that is an array) runs at once on its own. The statement's own numeric and text constants
 * are written in too, as literals of their type. A batch PostgreSQL refuses (one bad argument fails
 * it whole) runs again in halves, down to the reads alone, so each read gets its own answer or error.
 */
const MAX_BATCHES_IN_FLIGHT = 2;
/** Reads per coalesced statement at most (its answer carries every one's rows). */
const MAX_BATCH = 128;
/** Largest `limit`/`offset` written into a coalesced statement. */
const MAX_INLINED_PAGE_VALUE = 1000;
/** Coalesced statements per statement at most (each prepared on every connection that runs it). */
const MAX_STATEMENTS_PER_KIND = 32;

const statementName = (text: string) => `rp_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

/** Splits SQL text into code and quoted parts (strings, identifiers): odd indexes are quoted. */
const quotedParts = (text: string) => text.split(/('(?:[^']|'')*'|"(?:[^"]|"")*")/);

/** `$n` placeholders of a statement outside its quoted strings and identifiers, replaced. */
export function replacePlaceholders(text: string, by: (n: number) => string): string {
  return quotedParts(text)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/\$(\d+)(?!\d)/g, (_, n: string) => by(Number(n)))))
    .join('');
}

/** The parameters (1-based) that a `limit` or `offset` takes, outside quoted parts. */
export function pageParameters(text: string): Set<number> {
  const found = new Set<number>();
  quotedParts(text).forEach((part, i) => {
    if (i % 2 === 0) for (const m of part.matchAll(/\b(?:limit|offset)\s+\$(\d+)(?!\d)/gi)) found.add(Number(m[1]));
  });
  return found;
}

const NUMERIC_TYPES = new Set(['smallint', 'integer', 'bigint', 'numeric']);
const TEXT_TYPES = new Set(['text', 'character varying']);

/** How a statement is coalesced: which parameters travel as arrays, which are written in. */
export interface CoalescedForm {
  /** 0-based parameters written into the text (limits and offsets). */
  readonly inlined: readonly number[];
  /** 0-based parameters bound as one array each, in order. */
  readonly arrays: readonly number[];
  /** The statement for these values of the inlined parameters. */
  text(inlinedValues: readonly number[]): string;
}

/**
 * The coalesced form of a json-rows statement (one `r` column) whose parameters have these types
 * (pg_prepared_statements), or null when it has none: an array parameter cannot travel in an array
 * of its own, and a statement without parameters has nothing to tell its reads apart.
 */
export function coalescedForm(
  jsonRowsSql: string,
  types: readonly string[],
  constants: ReadonlyMap<number, unknown> = new Map(),
): CoalescedForm | null {
  if (types.length === 0) return null;
  if (types.some((t) => t.endsWith('[]') || t === 'unknown' || !/^[a-z][a-z0-9 _"]*$/.test(t))) return null;
  const pages = pageParameters(jsonRowsSql);
  const inlined = [...pages].map((n) => n - 1).sort((a, b) => a - b);
  // The statement's own constants (a status, a kind) are written in too, as literals of their type.
  const literal = (p: number): string | null => {
    const v = constants.get(p);
    const type = types[p] as string;
    // Numbers and text only: a literal of another type may mean something else once planned (a
    // 'now'::timestamptz would be frozen in the prepared statement).
    if (typeof v === 'number' && Number.isSafeInteger(v) && NUMERIC_TYPES.has(type)) return `${v}::${type}`;
    if (typeof v === 'string' && TEXT_TYPES.has(type) && !v.includes('\\')) return `'${v.replaceAll("'", "''")}'::${type}`;
    return null;
  };
  const literals = new Map<number, string>();
  for (const p of constants.keys()) {
    const l = p < types.length && !pages.has(p + 1) ? literal(p) : null;
    if (l !== null) literals.set(p, l);
  }
  const arrays = types.map((_, i) => i).filter((i) => !pages.has(i + 1) && !literals.has(i));
  if (arrays.length === 0 || inlined.some((i) => i >= types.length)) return null;
  const alias = 'rapport_args';
  const unnest = arrays.map((p, k) => `$${k + 1}::${types[p] as string}[]`).join(', ');
  const columns = arrays.map((p) => `a${p + 1}`).join(', ');
  return {
    inlined,
    arrays,
    text(values) {
      const inner = replacePlaceholders(jsonRowsSql, (n) => {
        const at = inlined.indexOf(n - 1);
        return at >= 0 ? String(values[at]) : (literals.get(n - 1) ?? `${alias}.a${n}`);
      });
      return `select ${alias}.i, (select json_agg(s.r) from (${inner}) as s) as rs from unnest(${unnest}) with ordinality as ${alias}(${columns}, i)`;
    },
  };
}

interface Waiting {
  values: unknown[];
  /** The inlined parameters' values, as a key: reads go together only with equal keys. */
  key: string;
  resolve: (rows: never[]) => void;
  reject: (error: unknown) => void;
}

interface Batches {
  form: CoalescedForm;
  /** Coalesced statement text and name per inlined values. */
  statements: Map<string, { name: string; text: string }>;
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
  /** The coalesced form, once known; null when the statement cannot have one. */
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
 * statement waiting together are coalesced (see above).
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
      const constants = new Map<number, unknown>();
      t.slots.forEach((slot, p) => slot < 0 && constants.set(p, t.constants[p]));
      const form = types ? coalescedForm(text, types, constants) : null;
      const batches = form ? { form, statements: new Map(), keys: new Set<string>(), waiting: [], inFlight: 0, scheduled: false } : null;
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

  const alone = async (t: PgTemplate, values: unknown[]): Promise<never[]> => {
    const rows = (await pool.query<{ r: unknown[] }>({ name: t.name, text: t.sql, values })).rows;
    return buildRows(
      t.row as (values: unknown[]) => unknown,
      rows.map((x) => x.r),
    );
  };

  const together = async (t: PgTemplate, b: Batches, group: Waiting[]): Promise<void> => {
    const head = group[0] as Waiting;
    if (group.length === 1) return alone(t, head.values).then(head.resolve, head.reject);
    let statement = b.statements.get(head.key);
    if (statement === undefined) {
      const text = b.form.text(b.form.inlined.map((p) => head.values[p] as number));
      b.statements.set(head.key, (statement = { name: statementName(text), text }));
    }
    const arrays = b.form.arrays.map((p) => group.map((w) => w.values[p]));
    let result: BatchRow[];
    try {
      result = (await pool.query<BatchRow>({ name: statement.name, text: statement.text, values: arrays })).rows;
    } catch {
      // One read the statement refuses fails them all: the halves run again (a lone read as the plain
      // statement), so each read gets its own answer or error in ~2·log2(n) more statements, not n.
      const half = Math.ceil(group.length / 2);
      await Promise.all([together(t, b, group.slice(0, half)), together(t, b, group.slice(half))]);
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
  const flush = (t: PgTemplate, b: Batches) => {
    b.scheduled = false;
    while (b.waiting.length > 0 && b.inFlight < MAX_BATCHES_IN_FLIGHT) {
      const { key } = b.waiting[0] as Waiting;
      const group: Waiting[] = [];
      const rest: Waiting[] = [];
      for (const w of b.waiting) (w.key === key && group.length < MAX_BATCH ? group : rest).push(w);
      b.waiting = rest;
      b.inFlight += 1;
      void together(t, b, group)
        .catch((error: unknown) => {
          for (const w of group) w.reject(error); // not expected: together() answers every read itself
        })
        .finally(() => {
          b.inFlight -= 1;
          if (b.waiting.length > 0 && !b.scheduled) flush(t, b);
        });
    }
  };

  /**
   * The key of the reads a read may go with, or null when it must run alone: a page past what is
   * written in, a new key once MAX_STATEMENTS_PER_KIND are taken, or an argument that is an object
   * (an array or a Buffer would not travel inside an array parameter as it does alone).
   */
  const keyOf = (b: Batches, values: readonly unknown[]): string | null => {
    for (const p of b.form.arrays) {
      const v = values[p];
      if (typeof v === 'object' && v !== null) return null;
    }
    let key = '';
    for (const p of b.form.inlined) {
      const v = values[p];
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
    const values = bindTemplate(t, args);
    if (t.plain) return pool.query({ name: t.name, text: t.sql, values }).then((r) => r.rows as never[]);
    if (t.row === null) return first(q, t, values);
    const b = t.batches;
    if (b === null) return alone(t, values);
    const key = keyOf(b, values);
    // A read that cannot go with others runs at once, without waiting for a batch's turn.
    if (key === null) return alone(t, values);
    const template = t;
    return new Promise<never[]>((resolve, reject) => {
      b.waiting.push({ values, key, resolve, reject });
      if (!b.scheduled && b.inFlight < MAX_BATCHES_IN_FLIGHT) {
        // The reads that arrive in this turn of the event loop go out together.
        b.scheduled = true;
        setImmediate(flush, template, b);
      }
    });
  };
  return {
    all: (q, ...args) => run(q as PreparedQuery<never, unknown>, args),
    first: async (q, ...args) => (await run(q as PreparedQuery<never, unknown>, args))[0],
  };
}
