import {
  type CompiledQuery,
  type Insertable,
  InsertQueryNode,
  type Kysely,
  type RawBuilder,
  type SqlBool,
  TableNode,
  UpdateQueryNode,
  createQueryId,
  sql,
} from 'kysely';
import type { DialectFeatures } from './dialect.ts';
import type { Database } from './schema.ts';
import { BoundedCache } from '../lib/bounded-cache.ts';

type Db = Kysely<Database>;
type Table = keyof Database & string;
type Value = string | number | boolean | null;

/**
 * Bulk writes and id-list lookups, written once per capability (ADR 0007: ingestion batches of
 * 1000 records). Where a whole array binds as one parameter (PostgreSQL), rows go in as one JSON
 * parameter (json_populate_recordset) and lookups through `unnest` of one array: a statement with
 * one parameter instead of 25,000 parses, plans and binds several times faster. Elsewhere (SQLite) rows go in
 * as multi-row VALUES of a few fixed row counts (statementSizes), whose statements the SQLite
 * connection reuses from its cache, and lookups through json_each of one JSON parameter.
 *
 * Writes are sent as compiled SQL: the statement text is built once per table, columns
 * and row count and kept, so a batch costs no query building, no per-value parsing and no
 * compiling — Kysely's builders cost as much CPU as SQLite's own work on a 1000-row insert.
 * Every row of one call must have the same keys (the first row's); an absent value is null.
 */
export interface BulkOps {
  insert<T extends Table>(db: Db, table: T, rows: Insertable<Database[T]>[]): Promise<void>;
  /**
   * Inserts rows; a row whose `key` columns match a stored row adds its `counter` to the stored
   * value instead (rows must already be aggregated per key).
   */
  insertOrAdd<T extends Table>(db: Db, table: T, rows: Insertable<Database[T]>[], key: string[], counter: string): Promise<void>;
  /**
   * Raises `column` of a project's rows found by primary key to each row's value (an integer) where
   * the stored value is lower: `rows` are [project, id, value], at most one per id. One statement per
   * chunk whatever the number of rows (the values travel as one JSON parameter); the project is
   * checked on the rows found (as DialectFeatures.projectIs); rows whose value is not higher are
   * left alone (and unlocked).
   */
  raiseTo<T extends Table>(db: Db, table: T, column: string, rows: [string, string, number][]): Promise<void>;
  /**
   * Inserts rows; a row whose `key` columns match a stored row replaces the stored row's `replace`
   * columns with its own instead (one row per key).
   */
  upsert<T extends Table>(db: Db, table: T, rows: Insertable<Database[T]>[], key: string[], replace: string[]): Promise<void>;
  /**
   * Sets `columns` of a project's rows found by primary key (`id`) to each row's values: `rows` are
   * [project, id, ...values in the order of `columns`], at most one per id. One statement per chunk
   * (the values travel as one JSON parameter); the project is checked on the rows found.
   */
  setColumns<T extends Table>(db: Db, table: T, columns: readonly SetColumn[], rows: [string, string, ...Value[]][]): Promise<void>;
  /** `column IN (values)`: true for none of an empty list. */
  anyOf(column: string, values: readonly Value[]): RawBuilder<SqlBool>;
  /** Splits values for anyOf so no statement exceeds the parameter limit. */
  lookupChunks<T>(values: T[]): T[][];
}

/** A column `setColumns` writes, with the SQL type its JSON value is read as. */
export interface SetColumn {
  name: string;
  type: 'int8' | 'float8' | 'text';
}

function columnsOf(rows: object[]): string[] {
  return Object.keys(rows[0] as object);
}

function chunk<T>(rows: T[], size: number): T[][] {
  if (rows.length === 0) return [];
  if (rows.length <= size) return [rows];
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** A quoted identifier for hand-built statement text (names come from code, never from input). */
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Statement texts by shape; the same string object is handed out again, so its hash is computed once.
 * Shapes are few (tables × row counts of a chunk); the bound only guards against surprises.
 */
const statementTexts = () => new BoundedCache<string, string>(512);

/**
 * An insert written as text, with a query node that names its table: the change tracking
 * (change-epoch.ts) reads which table a statement writes from its node, never from its text.
 */
function insertStatement(table: string, text: string, parameters: readonly unknown[]): CompiledQuery {
  return { query: InsertQueryNode.create(TableNode.create(table)), queryId: createQueryId(), sql: text, parameters };
}

/** An update written as text, with a query node that names its table (as insertStatement). */
function updateStatement(table: string, text: string, parameters: readonly unknown[]): CompiledQuery {
  return { query: UpdateQueryNode.create([TableNode.create(table)]), queryId: createQueryId(), sql: text, parameters };
}

/**
 * The update of raiseTo: `values` is the rows' relation (columns p, id, v); `plus` keeps the project
 * condition out of SQLite's index choice (the primary key must stay its way in).
 */
function raiseText(table: string, column: string, values: string, plus: string): string {
  const t = quote(table);
  const c = quote(column);
  return `update ${t} set ${c} = r.v from ${values} where ${t}."id" = r.id and ${plus}${t}."app_id" = r.p and ${t}.${c} < r.v`;
}

/** The update of setColumns: `values` is the rows' relation (columns p, id, c0, c1, …). */
function setText(table: string, columns: readonly SetColumn[], values: string, plus: string): string {
  const t = quote(table);
  const sets = columns.map((c, i) => `${quote(c.name)} = r.c${i}`).join(', ');
  return `update ${t} set ${sets} from ${values} where ${t}."id" = r.id and ${plus}${t}."app_id" = r.p`;
}

function replaceClause(key: string[], replace: string[]): string {
  return ` on conflict (${key.map(quote).join(', ')}) do update set ${replace.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(', ')}`;
}

function upsertClause(table: string, key: string[], counter: string): string {
  return ` on conflict (${key.map(quote).join(', ')}) do update set ${quote(counter)} = ${quote(table)}.${quote(counter)} + excluded.${quote(counter)}`;
}

export function bulkOps(features: DialectFeatures): BulkOps {
  if (features.arrayParameters) return arrayBulkOps();
  return valuesBulkOps(features);
}

/**
 * Parameters in one multi-row statement at most. The connection keeps its prepared statements, and a
 * prepared statement costs ~80 bytes per parameter: at 1000 rows × 30 columns one took 2.5 MB,
 * and with a new row count every batch (rollups, totals) the statement cache held ~100 MB of them
 * on the bench's dataset (peak RSS). Statements of at most 4,096 parameters (~0.3 MB)
 * cost the same to run per row.
 */
const MAX_STATEMENT_PARAMETERS = 4096;

/**
 * Row counts of the statements that write `total` rows: full statements of `most` rows, then the
 * rest as powers of two (so a table has at most ~log2(most) statement shapes, whatever the batch).
 */
export function statementSizes(total: number, most: number): number[] {
  const sizes: number[] = [];
  let left = total;
  while (left >= most) {
    sizes.push(most);
    left -= most;
  }
  for (let p = 2 ** Math.floor(Math.log2(Math.max(1, most))); left > 0; p /= 2) {
    if (p <= left) {
      sizes.push(p);
      left -= p;
    }
  }
  return sizes;
}

function valuesBulkOps(features: DialectFeatures): BulkOps {
  const { maxParameters } = features;
  const rowsPerStatement = (columns: number) =>
    Math.max(1, Math.min(1000, Math.floor(Math.min(maxParameters, MAX_STATEMENT_PARAMETERS) / columns)));
  const texts = statementTexts();

  function statement(table: string, columns: string[], count: number, suffix: string): string {
    return texts.get(`${table}\u0000${columns.join(',')}\u0000${count}\u0000${suffix}`, () => {
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      return `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${Array(count).fill(tuple).join(', ')}${suffix}`;
    });
  }

  async function write(db: Db, table: string, rows: object[], suffix: string): Promise<void> {
    if (rows.length === 0) return;
    const columns = columnsOf(rows);
    const width = columns.length;
    let at = 0;
    for (const size of statementSizes(rows.length, rowsPerStatement(width))) {
      const params: unknown[] = new Array(size * width);
      let i = 0;
      for (let r = at; r < at + size; r += 1) {
        const row = rows[r] as Record<string, unknown>;
        for (let c = 0; c < width; c += 1) {
          const v = row[columns[c] as string];
          params[i++] = v === undefined ? null : v;
        }
      }
      at += size;
      await db.executeQuery(insertStatement(table, statement(table, columns, size, suffix), params));
    }
  }

  return {
    insert(db, table, rows) {
      return write(db, table, rows, '');
    },
    insertOrAdd(db, table, rows, key, counter) {
      return write(db, table, rows, upsertClause(table, key, counter));
    },
    async raiseTo(db, table, column, rows) {
      const text = texts.get(`raise\u0000${table}\u0000${column}`, () =>
        raiseText(
          table,
          column,
          `(select json_extract(value, '$[0]') as p, json_extract(value, '$[1]') as id, json_extract(value, '$[2]') as v from json_each(?)) as r`,
          '+',
        ),
      );
      for (const part of chunk(rows, 50_000)) await db.executeQuery(updateStatement(table, text, [JSON.stringify(part)]));
    },
    upsert(db, table, rows, key, replace) {
      return write(db, table, rows, replaceClause(key, replace));
    },
    async setColumns(db, table, columns, rows) {
      const text = texts.get(`set\u0000${table}\u0000${columns.map((c) => c.name).join(',')}`, () => {
        const picks = columns.map((_, i) => `json_extract(value, '$[${i + 2}]') as c${i}`).join(', ');
        const values = `(select json_extract(value, '$[0]') as p, json_extract(value, '$[1]') as id, ${picks} from json_each(?)) as r`;
        return setText(table, columns, values, '+');
      });
      for (const part of chunk(rows, 50_000)) await db.executeQuery(updateStatement(table, text, [JSON.stringify(part)]));
    },
    anyOf(column, values) {
      if (values.length === 0) return sql<SqlBool>`1 = 0`;
      // The list as one JSON parameter: one statement whatever its length (a `?` per value made a
      // new prepared statement for every list length, each kept by the connection).
      const type = values.every((v) => typeof v === 'number') ? 'int8' : 'text';
      return features.listParameter(column, sql.val(JSON.stringify(values)), type);
    },
    lookupChunks(values) {
      return chunk(values, 50_000);
    },
  };
}

function arrayBulkOps(): BulkOps {
  const texts = statementTexts();

  // The rows go in as ONE JSON parameter that PostgreSQL turns into rows of the table's own type
  // (json_populate_recordset: each column converted by its type's input function). Against one
  // array per column through unnest, the batch costs a single native JSON.stringify instead of
  // node-postgres escaping every value into array literals: Node CPU of a 1000-record ingestion
  // batch 33 → 29 ms, PostgreSQL's share no higher.
  function statement(table: string, columns: string[], suffix: string): string {
    return texts.get(`${table}\u0000${columns.join(',')}\u0000${suffix}`, () => {
      const list = columns.map(quote).join(', ');
      return `insert into ${quote(table)} (${list}) select ${list} from json_populate_recordset(null::${quote(table)}, $1)${suffix}`;
    });
  }

  async function write(db: Db, table: string, rows: object[], suffix: string): Promise<void> {
    if (rows.length === 0) return;
    const text = statement(table, columnsOf(rows), suffix);
    // One parameter, but a huge statement still costs memory: stay at 5,000 rows.
    for (const part of chunk(rows, 5000)) await db.executeQuery(insertStatement(table, text, [JSON.stringify(part)]));
  }

  return {
    insert(db, table, rows) {
      return write(db, table, rows, '');
    },
    insertOrAdd(db, table, rows, key, counter) {
      return write(db, table, rows, upsertClause(table, key, counter));
    },
    async raiseTo(db, table, column, rows) {
      const text = texts.get(`raise\u0000${table}\u0000${column}`, () =>
        raiseText(table, column, `(select e->>0 as p, e->>1 as id, (e->>2)::int8 as v from json_array_elements($1::json) as e) as r`, ''),
      );
      for (const part of chunk(rows, 5000)) await db.executeQuery(updateStatement(table, text, [JSON.stringify(part)]));
    },
    upsert(db, table, rows, key, replace) {
      return write(db, table, rows, replaceClause(key, replace));
    },
    async setColumns(db, table, columns, rows) {
      const text = texts.get(`set\u0000${table}\u0000${columns.map((c) => c.name).join(',')}`, () => {
        const picks = columns
          .map((c, i) => (c.type === 'text' ? `e->>${i + 2} as c${i}` : `(e->>${i + 2})::${c.type} as c${i}`))
          .join(', ');
        return setText(table, columns, `(select e->>0 as p, e->>1 as id, ${picks} from json_array_elements($1::json) as e) as r`, '');
      });
      for (const part of chunk(rows, 5000)) await db.executeQuery(updateStatement(table, text, [JSON.stringify(part)]));
    },
    anyOf(column, values) {
      if (values.length === 0) return sql<SqlBool>`false`;
      // `= any($1)` is estimated at the array's full length and often planned as a sequential
      // scan; a sub-select of unnest (estimated at 100 rows) is planned as index probes.
      const type = values.every((v) => typeof v === 'number') ? 'int8[]' : 'text[]';
      return sql<SqlBool>`${sql.ref(column)} in (select unnest(${sql.val(values)}::${sql.raw(type)}))`;
    },
    lookupChunks(values) {
      return chunk(values, 50_000);
    },
  };
}
